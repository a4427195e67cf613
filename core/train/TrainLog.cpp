#include "core/train/TrainLog.h"

#include "core/base/Errors.h"
#include "core/base/Files.h"

#include <charconv>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <optional>
#include <sstream>

namespace core {

namespace {

const char* const kHeader = "step,loss,lr,tokens_per_s,elapsed_s,accuracy,induction,previous_token";

// A field as a finite number, read whole; nothing for text that is not one (a torn or damaged row).
std::optional<double> number(const std::string& text) {
    std::istringstream in(text);
    in.imbue(std::locale::classic());
    double v = 0.0;
    if (!(in >> v) || in.peek() != std::char_traits<char>::eof() || !std::isfinite(v))
        return std::nullopt;
    return v;
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
    std::string text = std::filesystem::exists(path) ? readFile(path) : std::string();
    if (text.empty())
        text = std::string(kHeader) + "\n";
    if (text.back() != '\n')
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
        // Six columns (an older program's log) or eight; the first five are always numbers, the rest may be
        // empty (not measured). Anything else is a torn or damaged line.
        if ((f.size() != 6 && f.size() != 8) || rowStep(line) < 0)
            continue;
        const auto loss = number(f[1]), lr = number(f[2]), speed = number(f[3]), elapsed = number(f[4]);
        const auto optional = [](const std::string& t) {
            return t.empty() ? std::optional<double>(-1.0) : number(t);
        };
        const auto accuracy = optional(f[5]);
        const auto induction = f.size() == 8 ? optional(f[6]) : std::optional<double>(-1.0);
        const auto previous = f.size() == 8 ? optional(f[7]) : std::optional<double>(-1.0);
        if (!loss || !lr || !speed || !elapsed || !accuracy || !induction || !previous)
            continue;
        TrainLogRow r;
        r.stats = {rowStep(line), *loss, *lr, *speed, *elapsed};
        r.accuracy = *accuracy;
        r.heads = {*induction, *previous};
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
