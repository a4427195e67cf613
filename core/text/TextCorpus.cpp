#include "core/text/TextCorpus.h"

#include "core/base/Errors.h"
#include "core/base/Files.h"

#include <filesystem>
#include <fstream>
#include <sstream>
#include <unordered_map>

namespace core {

std::vector<std::string> TextCorpus::readDocuments(const std::string& path) {
    std::istringstream in(readCorpusFile(path));
    std::vector<std::string> docs;
    std::string line;
    while (std::getline(in, line)) {
        if (!line.empty() && line.back() == '\r')
            line.pop_back();
        if (!line.empty())
            docs.push_back(std::move(line));
    }
    if (docs.empty())
        throw FormatError(path + ": no text (one document a line is expected)");
    return docs;
}

TextCorpus::TextCorpus(const std::vector<std::string>& documents, const Tokenizer& tokenizer)
    : bos_(tokenizer.vocab().bos()), pad_(tokenizer.vocab().pad()) {
    // Words repeat: tokenizing each distinct piece once is most of the speed.
    std::unordered_map<std::string, std::vector<int32_t>> cache;
    const auto eos = static_cast<int32_t>(tokenizer.vocab().eos());
    for (const auto& doc : documents) {
        starts_.push_back(static_cast<int64_t>(stream_.size()));
        for (const auto& piece : tokenizer.pieces(doc)) {
            auto it = cache.find(piece);
            if (it == cache.end()) {
                std::vector<int32_t> ids;
                for (const auto& t : tokenizer.tokenize(piece))
                    ids.push_back(static_cast<int32_t>(t.id));
                it = cache.emplace(piece, std::move(ids)).first;
            }
            stream_.insert(stream_.end(), it->second.begin(), it->second.end());
        }
        stream_.push_back(eos);
        bytes_ += static_cast<int64_t>(doc.size()) + 1;
    }
}

std::vector<int64_t> TextCorpus::windowAt(int64_t position, int64_t length) const {
    std::vector<int64_t> ids;
    ids.reserve(static_cast<std::size_t>(length + 1));
    ids.push_back(bos_);
    const auto n = static_cast<int64_t>(stream_.size());
    for (int64_t i = 0; i < length; ++i)
        ids.push_back(position + i < n ? stream_[static_cast<std::size_t>(position + i)] : pad_);
    return ids;
}

std::vector<int64_t> TextCorpus::window(std::size_t doc, int64_t length) const {
    return windowAt(starts_.at(doc), length);
}

} // namespace core
