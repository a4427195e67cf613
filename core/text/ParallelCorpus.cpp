#include "core/text/ParallelCorpus.h"

#include "core/base/Errors.h"
#include "core/base/Files.h"

#include <filesystem>
#include <fstream>
#include <sstream>

namespace core {

std::vector<SentencePair> readSentencePairs(const std::string& path) {
    std::istringstream in(readCorpusFile(path));
    std::vector<SentencePair> pairs;
    std::string line;
    int64_t number = 0;
    while (std::getline(in, line)) {
        ++number;
        if (!line.empty() && line.back() == '\r')
            line.pop_back();
        if (line.empty())
            continue;
        const auto tab1 = line.find('\t');
        const auto tab2 = tab1 == std::string::npos ? tab1 : line.find('\t', tab1 + 1);
        if (tab1 == std::string::npos || tab1 == 0 || tab1 + 1 == line.size() || tab2 == tab1 + 1 ||
            (tab2 != std::string::npos && line.find('\t', tab2 + 1) != std::string::npos))
            throw FormatError(path + ":" + std::to_string(number) +
                              ": expected 'source<TAB>target' or 'source<TAB>target<TAB>tag'");
        SentencePair p;
        p.source = line.substr(0, tab1);
        p.target = line.substr(tab1 + 1, tab2 == std::string::npos ? std::string::npos : tab2 - tab1 - 1);
        if (tab2 != std::string::npos)
            p.tag = line.substr(tab2 + 1);
        pairs.push_back(std::move(p));
    }
    if (pairs.empty())
        throw FormatError(path + ": no sentence pairs");
    return pairs;
}

} // namespace core
