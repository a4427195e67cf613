#pragma once
// How well a classifier's answers match their labels: accuracy, and for each class its precision (of the
// texts given that class, the share that has it), recall (of the texts that have it, the share found) and
// F1, with the confusion counts behind them, as scikit-learn's classification_report defines them.

#include <cstdint>
#include <string>
#include <vector>

namespace core {

struct ClassScores {
    std::string name;
    int64_t support = 0;    ///< texts labelled with this class
    int64_t predicted = 0;  ///< texts the classifier gave this class
    int64_t correct = 0;    ///< both
    double precision = 0.0; ///< correct / predicted; 0 when the class was never predicted
    double recall = 0.0;    ///< correct / support; 0 when no text has the class
    double f1 = 0.0;        ///< their harmonic mean; 0 when both are 0
};

struct ClassificationReport {
    int64_t total = 0;
    int64_t correct = 0;
    double accuracy = 0.0;                       ///< correct / total; 0 for no texts
    std::vector<ClassScores> classes;            ///< in the order of `classes`
    std::vector<std::vector<int64_t>> confusion; ///< [label][answer] counts, both in the order of `classes`
};

/// Scores answers against labels (the same length, every entry one of classes). Throws InputError naming the
/// first entry that is not a class, or when the lengths differ.
ClassificationReport classificationReport(const std::vector<std::string>& classes,
                                          const std::vector<std::string>& labels,
                                          const std::vector<std::string>& answers);

} // namespace core
