#include "app/bench/BenchMeasure.h"

#include "core/base/BlasCore.h"
#include "core/base/PackedWeights.h"
#include "core/base/Runtime.h"

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <fstream>

// The median rather than the mean: a run that a background job (training on the same cores) interrupts
// moves the mean, not the median; min and max show how noisy the machine was.
Stat summarize(std::vector<double> samples) {
    Stat s;
    if (samples.empty())
        return s;
    std::sort(samples.begin(), samples.end());
    const auto n = samples.size();
    s.median = n % 2 ? samples[n / 2] : 0.5 * (samples[n / 2 - 1] + samples[n / 2]);
    s.min = samples.front();
    s.max = samples.back();
    s.runs = static_cast<int>(n);
    return s;
}

Stat constantStat(double value, int runs) {
    return {value, value, value, runs};
}

nlohmann::ordered_json toJson(const Row& r) {
    return {{"id", r.id},        {"label", r.label},  {"unit", r.unit},     {"median", r.stat.median},
            {"min", r.stat.min}, {"max", r.stat.max}, {"runs", r.stat.runs}};
}

nlohmann::ordered_json toJson(const std::vector<Row>& rows) {
    auto out = nlohmann::ordered_json::array();
    for (const auto& r : rows)
        out.push_back(toJson(r));
    return out;
}

// Three significant digits or so: 0.412, 12.3, 1234.
std::string number(double v) {
    char text[32];
    std::snprintf(text, sizeof text, v >= 100 ? "%.0f" : v >= 10 ? "%.1f" : "%.2f", v);
    return text;
}

std::string cellText(const Row& r) {
    if (r.unit == "MB")
        return number(r.stat.median);
    return number(r.stat.median) + " [" + number(r.stat.min) + "-" + number(r.stat.max) + "]";
}

void printRows(const std::vector<Row>& rows) {
    std::size_t width = 7;
    for (const auto& r : rows)
        width = std::max(width, r.label.size());
    std::printf("%-*s %10s %10s %10s\n", static_cast<int>(width), "measure", "median", "min", "max");
    for (const auto& r : rows)
        std::printf("%-*s %10.2f %10.2f %10.2f %s\n", static_cast<int>(width), r.label.c_str(), r.stat.median,
                    r.stat.min, r.stat.max, r.unit.c_str());
}

namespace {

std::string cpuModel() {
    std::ifstream in("/proc/cpuinfo");
    std::string line;
    while (std::getline(in, line))
        if (line.rfind("model name", 0) == 0) {
            const auto colon = line.find(':');
            if (colon != std::string::npos)
                return line.substr(line.find_first_not_of(" \t", colon + 1));
        }
    return "unknown";
}

} // namespace

Machine thisMachine() {
    return {cpuModel(),
            core::cudaAvailable() ? "cuda" : "cpu",
            core::threadCount(),
            core::blasCoreName(),
            core::torchVersion(),
            core::ompWaitSetting(),
            core::PackedWeights::describe()};
}

nlohmann::ordered_json toJson(const Machine& m) {
    return {
        {"cpu", m.cpu},     {"device", m.device},    {"threads", m.threads},      {"openblas", m.openblas},
        {"torch", m.torch}, {"omp_wait", m.ompWait}, {"packed_weights", m.packed}};
}
