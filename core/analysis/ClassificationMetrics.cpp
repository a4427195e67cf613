#include "core/analysis/ClassificationMetrics.h"

#include "core/base/Errors.h"

#include <algorithm>

namespace core {

namespace {

std::size_t indexOf(const std::vector<std::string>& classes, const std::string& name, const char* what,
                    std::size_t i) {
    const auto it = std::find(classes.begin(), classes.end(), name);
    if (it == classes.end())
        throw InputError(std::string(what) + " " + std::to_string(i + 1) + " is \"" + name +
                         "\", which is not one of the classes");
    return static_cast<std::size_t>(it - classes.begin());
}

double ratio(int64_t a, int64_t b) {
    return b > 0 ? static_cast<double>(a) / static_cast<double>(b) : 0.0;
}

} // namespace

ClassificationReport classificationReport(const std::vector<std::string>& classes,
                                          const std::vector<std::string>& labels,
                                          const std::vector<std::string>& answers) {
    if (labels.size() != answers.size())
        throw InputError("there are " + std::to_string(labels.size()) + " labels but " +
                         std::to_string(answers.size()) + " answers");
    ClassificationReport r;
    const auto k = classes.size();
    r.confusion.assign(k, std::vector<int64_t>(k, 0));
    for (std::size_t i = 0; i < labels.size(); ++i)
        ++r.confusion[indexOf(classes, labels[i], "label", i)][indexOf(classes, answers[i], "answer", i)];
    r.total = static_cast<int64_t>(labels.size());
    for (std::size_t c = 0; c < k; ++c) {
        ClassScores s;
        s.name = classes[c];
        s.correct = r.confusion[c][c];
        for (std::size_t o = 0; o < k; ++o) {
            s.support += r.confusion[c][o];
            s.predicted += r.confusion[o][c];
        }
        s.precision = ratio(s.correct, s.predicted);
        s.recall = ratio(s.correct, s.support);
        s.f1 = s.precision + s.recall > 0 ? 2 * s.precision * s.recall / (s.precision + s.recall) : 0.0;
        r.correct += s.correct;
        r.classes.push_back(s);
    }
    r.accuracy = ratio(r.correct, r.total);
    return r;
}

} // namespace core
