// `attnscope align`: one sentence through two (or more) translation models, each one's greedy output and
// the attention each output token was produced with, as JSON: the GRU translator's alignment beside the
// Transformer's cross-attention (a layer and head, or the mean), with how often the two agree.

#include "app/Args.h"
#include "app/Commands.h"
#include "app/RunCommand.h"

#include "core/analysis/Alignment.h"
#include "core/model/Model.h"

#include <nlohmann/json.hpp>

#include <cstdio>
#include <sstream>

namespace {

const char* kAlignHelp = R"(usage: attnscope align --model DIR --model DIR [--model DIR …] --src TEXT
                       [--layer L] [--head H] [--max-tokens N]

Translates TEXT greedily with each model and prints, as JSON, each one's output tokens and the attention
over the source each of them was produced with (a row per output, a column per source token): a GRU
translator's one map, and a Transformer's cross-attention of layer L and head H (default: the mean over
layers and heads; a GRU translator, with one map, ignores them). "agreement" gives, for each later
model, the share of the outputs it shares with the first that attend most to the same source token (null
when they share none or tokenize the source differently).
)";

nlohmann::json toJson(const core::Alignment& a) {
    nlohmann::json j;
    j["model"] = a.model;
    j["shape"] = a.shape;
    j["translation"] = a.translation;
    for (const auto& t : a.source)
        j["source_tokens"].push_back(t.text);
    j["output_tokens"] = nlohmann::json::array();
    for (const auto& t : a.outputs)
        j["output_tokens"].push_back(t.text);
    j["layers"] = a.layers;
    j["heads"] = a.heads;
    j["layer"] = a.layer < 0 ? nlohmann::json("mean") : nlohmann::json(a.layer);
    j["head"] = a.head < 0 ? nlohmann::json("mean") : nlohmann::json(a.head);
    j["weights"] = nlohmann::json::array();
    for (int r = 0; r < a.weights.rows; ++r)
        j["weights"].push_back(std::vector<float>(a.weights.row(r), a.weights.row(r) + a.weights.cols));
    return j;
}

} // namespace

int runAlign(const std::vector<std::string>& argv) {
    return runCommand("align", kAlignHelp, {{"--model", "--src", "--layer", "--head", "--max-tokens"}, {}},
                      argv, [&](const Args& a) {
                          const auto dirs = a.getAll("--model");
                          if (dirs.size() < 2 || !a.has("--src"))
                              throw UsageError("two or more --model DIR and --src TEXT are required");
                          const int layer = static_cast<int>(a.getInt("--layer", -1));
                          const int head = static_cast<int>(a.getInt("--head", -1));
                          const int maxTokens = static_cast<int>(a.getInt("--max-tokens", 0));
                          if (layer < -1 || head < -1 || maxTokens < 0)
                              throw UsageError("--layer, --head and --max-tokens take a number of 0 or more");
                          std::vector<core::Alignment> all;
                          for (const auto& dir : dirs) {
                              const auto model = core::Model::load(dir);
                              // One layer of one head (a GRU) has nothing to choose: the chosen layer and
                              // head apply to the models that have them.
                              const auto& c = model->config();
                              const bool single = c.recurrent();
                              all.push_back(core::alignmentOf(model, a.get("--src"), single ? -1 : layer,
                                                              single ? -1 : head, maxTokens));
                          }
                          nlohmann::json out;
                          out["src_text"] = a.get("--src");
                          for (const auto& al : all)
                              out["models"].push_back(toJson(al));
                          out["agreement"] = nlohmann::json::array();
                          for (std::size_t i = 1; i < all.size(); ++i) {
                              const double g = core::argmaxAgreement(all[0], all[i]);
                              out["agreement"].push_back(g < 0 ? nlohmann::json() : nlohmann::json(g));
                          }
                          std::printf("%s\n", jsonText(out, 1).c_str());
                          return 0;
                      });
}
