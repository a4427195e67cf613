// `attnscope heads`: every decoder self-attention head's scores (core/analysis/HeadAnalysis.h) as a table or
// JSON.

#include "app/Args.h"
#include "app/Commands.h"
#include "app/RunCommand.h"

#include "core/analysis/HeadAnalysis.h"
#include "core/model/Model.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cstdio>
#include <functional>
#include <iostream>
#include <map>

namespace {

const char* kHeadsHelp =
    R"(usage: attnscope heads --model DIR [--length R] [--sequences K] [--seed S] [--sort COLUMN]
                       [--top N] [--json]

Scores every decoder self-attention head on K random token sequences (default 4), each given twice after
<bos> (<bos> R R, R of R tokens, default 32, fewer when max_len is shorter). An encoder-decoder model reads
R as its source. Columns, each the mean over the sequences:
  entropy     mean row entropy in bits (0: each query looks at one key)
  distance    mean of sum_k w*|q - k|: how far a query looks, in positions
  first       mean weight on position 0 (<bos>), over rows 1 and on
  previous    mean weight on the previous position, over rows 1 and on
  induction   mean weight, over the second copy's rows, on the token after the current token's first
              occurrence: the mark of an induction head
--sort picks the column to order by, largest first (default induction); --top prints the first N rows.
)";

using Getter = std::function<double(const core::HeadScores&)>;

const std::map<std::string, Getter>& columns() {
    static const std::map<std::string, Getter> c{
        {"entropy", [](const core::HeadScores& s) { return s.entropyBits; }},
        {"distance", [](const core::HeadScores& s) { return s.meanDistance; }},
        {"first", [](const core::HeadScores& s) { return s.firstTokenWeight; }},
        {"previous", [](const core::HeadScores& s) { return s.previousTokenScore; }},
        {"induction", [](const core::HeadScores& s) { return s.inductionScore; }}};
    return c;
}

} // namespace

int runHeads(const std::vector<std::string>& argv) {
    return runCommand(
        "heads", kHeadsHelp,
        {{"--model", "--length", "--sequences", "--seed", "--sort", "--top"}, {"--json"}}, argv,
        [&](const Args& a) {
            if (!a.has("--model"))
                throw UsageError("--model DIR is required");
            core::HeadAnalysisSettings settings;
            settings.repeatLength = static_cast<int>(a.getInt("--length", settings.repeatLength));
            settings.sequences = static_cast<int>(a.getInt("--sequences", settings.sequences));
            const auto seed = a.getInt("--seed", 0);
            const auto top = a.getInt("--top", 0);
            if (settings.repeatLength < 2 || settings.sequences < 1 || seed < 0 || top < 0)
                throw UsageError(
                    "--length expects 2 or more, --sequences 1 or more, --seed and --top 0 or more");
            settings.seed = static_cast<uint64_t>(seed);
            const auto sortBy = a.get("--sort", "induction");
            const auto column = columns().find(sortBy);
            if (column == columns().end())
                throw UsageError("--sort expects entropy, distance, first, previous or induction, not '" +
                                 sortBy + "'");

            const auto model = core::Model::load(a.get("--model"));
            auto scores = core::analyzeHeads(*model, settings);
            const int repeat = core::fittedRepeatLength(*model, settings);
            std::stable_sort(scores.begin(), scores.end(),
                             [&](const core::HeadScores& x, const core::HeadScores& y) {
                                 return column->second(x) > column->second(y);
                             });
            if (top > 0 && static_cast<std::size_t>(top) < scores.size())
                scores.resize(static_cast<std::size_t>(top));

            if (a.has("--json")) {
                nlohmann::ordered_json j;
                j["model"] = model->config().name;
                j["repeat_length"] = repeat;
                j["sequences"] = settings.sequences;
                j["seed"] = settings.seed;
                j["sorted_by"] = sortBy;
                j["heads"] = nlohmann::ordered_json::array();
                for (const auto& s : scores)
                    j["heads"].push_back({{"layer", s.layer},
                                          {"head", s.head},
                                          {"entropy_bits", s.entropyBits},
                                          {"distance", s.meanDistance},
                                          {"first_token", s.firstTokenWeight},
                                          {"previous_token", s.previousTokenScore},
                                          {"induction", s.inductionScore}});
                std::cout << jsonText(j, 2) << "\n";
                return 0;
            }
            std::printf("%s: decoder self-attention heads on %d random sequences of <bos> + 2 x %d tokens "
                        "(seed %llu), "
                        "by %s\n",
                        model->config().name.c_str(), settings.sequences, repeat,
                        static_cast<unsigned long long>(settings.seed), sortBy.c_str());
            std::printf("layer  head  entropy  distance   first  previous  induction\n");
            for (const auto& s : scores)
                std::printf("%5d  %4d  %7.3f  %8.2f  %6.3f  %8.3f  %9.3f\n", s.layer, s.head, s.entropyBits,
                            s.meanDistance, s.firstTokenWeight, s.previousTokenScore, s.inductionScore);
            return 0;
        });
}
