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

const char* const kHeader = "step,loss,lr,tokens_per_s,elapsed_s,accuracy,induction,previous_token";

// A field as a number, or -1 when it is empty (not measured) or not a number.
double field(const std::string& text) {
    if (text.empty())
        return -1.0;
    std::istringstream in(text);
    in.imbue(std::locale::classic());
    double v = -1.0;
    return in >> v ? v : -1.0;
}

// The step a row starts with, or -1 for the header or a torn line.
int64_t rowStep(const std::string& line) {
    const auto comma = line.find(',');
    int64_t step = -1;
    if (comma != std::string::npos)
        std::from_chars(line.data(), line.data() + comma, step);
    return step;
}

} // namespace

void TrainLog::append(const std::string& path, const TrainStats& s, double accuracy, const HeadWatch& heads) {
    // The whole log is rewritten through a temporary file rather than appended to: an append cut short by a
    // full disk or a kill leaves a torn last line, and rewriting keeps every file the program writes to one
    // rule (the old file or the new one, whole). A long run's log is a few hundred KB, every tenth step.
    std::string text = std::filesystem::exists(path) ? readFile(path) : std::string(kHeader) + "\n";
    if (!text.empty() && text.back() != '\n')
        text += '\n';
    // A run begun by an older program, continued here: its rows simply lack the newer columns.
    const auto firstLine = text.find('\n');
    if (text.compare(0, firstLine, kHeader) != 0)
        text.replace(0, firstLine, kHeader);
    std::ostringstream row;
    row.imbue(std::locale::classic());
    row << s.step << ',' << s.loss << ',' << s.lr << ',' << s.tokensPerSecond << ',' << s.elapsedSeconds
        << ',';
    if (accuracy >= 0)
        row << accuracy;
    row << ',';
    if (heads.measured())
        row << heads.induction << ',' << heads.previous;
    else
        row << ',';
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
        std::vector<std::string> f;
        std::size_t from = 0;
        for (auto comma = line.find(','); comma != std::string::npos; comma = line.find(',', from)) {
            f.push_back(line.substr(from, comma - from));
            from = comma + 1;
        }
        f.push_back(line.substr(from));
        if (f.size() < 6 || rowStep(line) < 0)
            continue; // a torn line
        TrainLogRow r;
        r.stats.step = rowStep(line);
        r.stats.loss = field(f[1]);
        r.stats.lr = field(f[2]);
        r.stats.tokensPerSecond = field(f[3]);
        r.stats.elapsedSeconds = field(f[4]);
        r.accuracy = field(f[5]);
        if (f.size() >= 8) {
            r.heads.induction = field(f[6]);
            r.heads.previous = field(f[7]);
        }
        rows.push_back(r);
    }
    return rows;
}

int64_t TrainLog::formedAt(const std::vector<TrainLogRow>& rows, double threshold) {
    for (const auto& r : rows)
        if (r.heads.measured() && r.heads.induction >= threshold)
            return r.stats.step;
    return -1;
}

} // namespace core
