#pragma once
// How well a model does a task: exact-match accuracy of greedy decoding on fresh generated examples, the
// figure every shipped task model is held to.

#include "core/model/Model.h"
#include "core/train/Tasks.h"

#include <cstddef>
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

namespace core {

/// Called as work goes on with the sources answered so far and their number.
using AnswerProgress = std::function<void(std::size_t done, std::size_t total)>;

/// Greedy answers to many sources at once (batched), each cut at <eos>. Sources are spelled in the model's
/// characters; decoder-only models read "<bos> source <eos>" and answer after it. `progress`, when given,
/// hears after every decoding step how many sources are answered.
std::vector<std::string> greedyAnswers(const Model& model, const std::vector<std::string>& sources,
                                       int maxAnswer, const AnswerProgress& progress = {});

/// The class a classifier gives each text (its most probable), by name. `progress` as above.
std::vector<std::string> classifyTexts(const Model& model, const std::vector<std::string>& texts,
                                       const AnswerProgress& progress = {});

/// Exact-match accuracy of greedy decoding on n examples of the task drawn from seed.
double taskAccuracy(const Model& model, const Task& task, int n, uint64_t seed);

/// The examples of taskAccuracy (the same n and seed give the same examples).
std::vector<Example> evaluationExamples(const Task& task, int n, uint64_t seed);

} // namespace core
