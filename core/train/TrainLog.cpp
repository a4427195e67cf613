#include "core/train/TrainLog.h"

#include "core/base/Errors.h"
#include "core/base/Files.h"

#include <charconv>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>

namespace core {

namespace {

// The step a row starts with, or -1 for the header or a torn line.
int64_t rowStep(const std::string& line) {
    const auto comma = line.find(',');
    int64_t step = -1;
    if (comma != std::string::npos)
        std::from_chars(line.data(), line.data() + comma, step);
    return step;
}

} // namespace

void TrainLog::append(const std::string& path, const TrainStats& s, double accuracy) {
    // The whole log is rewritten through a temporary file rather than appended to: an append cut short by a
    // full disk or a kill leaves a torn last line, and rewriting keeps every file the program writes to one
    // rule (the old file or the new one, whole). A long run's log is a few hundred KB, every tenth step.
    std::string text =
        std::filesystem::exists(path) ? readFile(path) : "step,loss,lr,tokens_per_s,elapsed_s,accuracy\n";
    if (!text.empty() && text.back() != '\n')
        text += '\n';
    std::ostringstream row;
    row.imbue(std::locale::classic());
    row << s.step << ',' << s.loss << ',' << s.lr << ',' << s.tokensPerSecond << ',' << s.elapsedSeconds
        << ',';
    if (accuracy >= 0)
        row << accuracy;
    row << '\n';
    writeFileAtomically(path, text + row.str());
}

void TrainLog::keepUpTo(const std::string& path, int64_t step) {
    if (!std::filesystem::exists(path))
        return;
    std::ifstream log(path);
    std::string line, kept;
    bool header = true;
    while (std::getline(log, line)) {
        const auto s = rowStep(line); // a row that does not start with a step number is dropped as well
        if (header || (s >= 0 && s <= step))
            kept += line + "\n";
        header = false;
    }
    writeFileAtomically(path, kept);
}

std::vector<TrainLogRow> TrainLog::read(const std::string& path) {
    std::vector<TrainLogRow> rows;
    std::ifstream log(path);
    std::string line;
    std::getline(log, line); // the header
    while (std::getline(log, line)) {
        std::istringstream in(line);
        in.imbue(std::locale::classic());
        TrainLogRow r;
        char comma = 0;
        if (!(in >> r.stats.step >> comma >> r.stats.loss >> comma >> r.stats.lr >> comma >>
              r.stats.tokensPerSecond >> comma >> r.stats.elapsedSeconds >> comma))
            continue; // a torn line
        double accuracy = 0.0;
        if (in >> accuracy)
            r.accuracy = accuracy;
        rows.push_back(r);
    }
    return rows;
}

} // namespace core
