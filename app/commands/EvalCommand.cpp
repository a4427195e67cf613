// `attnscope eval`: translation quality of a model on sentence pairs, as sacreBLEU scores it: corpus BLEU
// (13a tokenizer) and chrF of greedy decoding, overall and for each source of sentences; or a language
// model's perplexity on held-out text; or a classifier's accuracy, precision and recall on labelled texts.

#include "app/Args.h"
#include "app/Commands.h"
#include "app/ProgressLine.h"
#include "app/RunCommand.h"

#include "core/analysis/ClassificationMetrics.h"
#include "core/analysis/Perplexity.h"
#include "core/analysis/TranslationMetrics.h"
#include "core/base/Files.h"
#include "core/model/Model.h"
#include "core/text/ParallelCorpus.h"
#include "core/text/TextCorpus.h"
#include "core/train/ClassificationData.h"
#include "core/train/TaskEval.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <functional>
#include <map>
#include <string>

namespace {

const char* kHelp = R"(usage: attnscope eval --model DIR --pairs FILE.tsv [--limit N] [--out FILE.tsv]
       attnscope eval --model DIR --text FILE.txt
       attnscope eval --model DIR --labels FILE.tsv [--limit N] [--out FILE.tsv] [--json]

Translates the first column of FILE.tsv (source<TAB>reference[<TAB>tag]) greedily and scores the output
against the second column: sacreBLEU's corpus BLEU (13a tokenizer, exp smoothing) and chrF (character
6-grams, beta 2), for all pairs and for each tag. --limit scores only the first N pairs; --out writes
source, reference, output and tag as TSV.

With --text (a decoder-only model): the perplexity of FILE.txt, one document a line, read in windows of
max_len tokens that start at a document behind <bos> (every token predicted once), and the same loss in
bits per byte of text; --limit N reads only N windows spread over the text (the training log's check).

With --labels (a classifier): classifies the second column of FILE.tsv (label<TAB>text) and prints the
accuracy and, for each class, precision, recall and F1 with the confusion counts; --json prints the same as
JSON; --out writes label, answer and the text as TSV.
)";

// "eval: 1000/2210 pairs (45%), 12 s, about 15 s to go", at most twice a second and at the end; a log
// (stderr not a terminal) gets one line per tenth of the work.
class EvalProgress {
public:
    explicit EvalProgress(const char* unit) : unit_(unit), t0_(std::chrono::steady_clock::now()) {}
    void operator()(std::size_t done, std::size_t total) {
        const double secs = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0_).count();
        const int tenth = total ? static_cast<int>(10 * done / total) : 10;
        const bool due = line_.tty() ? secs - shownAt_ >= 0.5 || done == total : tenth > shownTenth_;
        if (!due || total == 0)
            return;
        shownAt_ = secs;
        shownTenth_ = tenth;
        const double left = done ? secs / static_cast<double>(done) * static_cast<double>(total - done) : 0.0;
        std::string text = "eval: " + std::to_string(done) + "/" + std::to_string(total) + " " + unit_ +
                           " (" + std::to_string(100 * done / total) + "%), " +
                           std::to_string(std::lround(secs)) + " s";
        if (done > 0 && done < total)
            text += ", about " + std::to_string(std::lround(left)) + " s to go";
        line_.show(text);
    }
    void finish() const { line_.clear(); }

private:
    ProgressLine line_;
    const char* unit_;
    std::chrono::steady_clock::time_point t0_;
    double shownAt_ = -1.0;
    int shownTenth_ = -1;
};

int perplexityOfText(const core::Model& model, const std::string& path, int64_t windows) {
    const auto t0 = std::chrono::steady_clock::now();
    const core::TextCorpus corpus(core::TextCorpus::readDocuments(path), model.targetTokenizer());
    EvalProgress progress("windows");
    const auto r = core::perplexity(model, corpus, windows, std::ref(progress));
    progress.finish();
    const double secs = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    std::printf("%zu documents, %lld tokens, %lld bytes (%.2f bytes per token)\n", corpus.documents(),
                static_cast<long long>(r.tokens), static_cast<long long>(r.bytes),
                static_cast<double>(r.bytes) / static_cast<double>(std::max<int64_t>(r.tokens, 1)));
    std::printf("perplexity %.2f per token (%.4f nats), %.4f bits per byte\n", r.perplexity, r.nllPerToken,
                r.bitsPerByte);
    std::printf("measured in %.1f s\n", secs);
    return 0;
}

int classifyLabelled(const core::Model& model, const std::string& path, int64_t limit, const Args& a) {
    const auto& classes = model.config().classes;
    auto rows = core::readLabelledTexts(path, classes);
    if (limit > 0 && static_cast<std::size_t>(limit) < rows.size())
        rows.resize(static_cast<std::size_t>(limit));
    std::vector<std::string> texts, labels;
    for (const auto& r : rows) {
        texts.push_back(r.source);
        labels.push_back(r.target);
    }
    const auto t0 = std::chrono::steady_clock::now();
    EvalProgress progress("texts");
    const auto answers = core::classifyTexts(model, texts, std::ref(progress));
    progress.finish();
    const double secs = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    const auto r = core::classificationReport(classes, labels, answers);
    if (a.has("--json")) {
        nlohmann::json j;
        j["model"] = model.config().name;
        j["texts"] = r.total;
        j["correct"] = r.correct;
        j["accuracy"] = r.accuracy;
        j["seconds"] = secs;
        for (const auto& c : r.classes)
            j["classes"].push_back({{"name", c.name},
                                    {"support", c.support},
                                    {"predicted", c.predicted},
                                    {"correct", c.correct},
                                    {"precision", c.precision},
                                    {"recall", c.recall},
                                    {"f1", c.f1}});
        j["confusion"] = r.confusion; // [label][answer], both in the order of "classes"
        std::printf("%s\n", jsonText(j, 2).c_str());
    } else {
        std::printf("%-12s %7s %9s %9s %7s %7s\n", "class", "texts", "predicted", "precision", "recall",
                    "F1");
        for (const auto& c : r.classes)
            std::printf("%-12s %7lld %9lld %8.1f%% %6.1f%% %6.1f%%\n", c.name.c_str(),
                        static_cast<long long>(c.support), static_cast<long long>(c.predicted),
                        100 * c.precision, 100 * c.recall, 100 * c.f1);
        std::printf("accuracy %.1f%% (%lld of %lld)\n", 100 * r.accuracy, static_cast<long long>(r.correct),
                    static_cast<long long>(r.total));
        std::printf("%lld texts classified in %.1f s (%.2f ms per text)\n", static_cast<long long>(r.total),
                    secs, 1000.0 * secs / static_cast<double>(std::max<int64_t>(1, r.total)));
    }
    if (a.has("--out")) {
        std::string tsv;
        for (std::size_t i = 0; i < rows.size(); ++i)
            tsv += labels[i] + "\t" + answers[i] + "\t" + texts[i] + "\n";
        core::writeFileAtomically(a.get("--out"), tsv);
    }
    return 0;
}

void row(const std::string& name, const std::vector<std::string>& hyp, const std::vector<std::string>& ref) {
    const auto bleu = core::corpusBleu(hyp, ref);
    const auto chrf = core::corpusChrf(hyp, ref);
    std::printf("%-12s %7zu %7.2f %7.2f\n", name.c_str(), hyp.size(), bleu.score, chrf.score);
}

} // namespace

int runEval(const std::vector<std::string>& args) {
    return runCommand(
        "eval", kHelp, {{"--model", "--pairs", "--text", "--labels", "--limit", "--out"}, {"--json"}}, args,
        [&](const Args& a) {
            const int modes = int(a.has("--pairs")) + int(a.has("--text")) + int(a.has("--labels"));
            if (!a.has("--model") || modes != 1)
                throw UsageError("--model DIR and one of --pairs FILE.tsv, --text FILE.txt or --labels "
                                 "FILE.tsv are required");
            if (a.has("--json") && !a.has("--labels"))
                throw UsageError("--json goes with --labels");
            const auto limit = a.getInt("--limit", 0);
            if (limit < 0)
                throw UsageError("--limit must be positive");
            const auto model = core::Model::load(a.get("--model"));
            const bool classifier = model->config().family == core::Family::AttentionClassifier;
            if (a.has("--labels") != classifier)
                throw UsageError(a.get("--model") + (classifier
                                                         ? " is a classifier; eval scores it with --labels"
                                                         : " is not a classifier; --labels scores one"));
            if (classifier)
                return classifyLabelled(*model, a.get("--labels"), limit, a);
            if (a.has("--text")) {
                if (model->config().hasEncoder())
                    throw UsageError(
                        a.get("--model") + " is " +
                        (model->config().hasDecoder() ? "an encoder-decoder" : "an encoder-only") +
                        " model; --text measures a decoder-only language model's perplexity" +
                        (model->config().hasDecoder() ? " (use --pairs)" : ""));
                return perplexityOfText(*model, a.get("--text"), limit);
            }
            if (!model->config().twoSided())
                throw UsageError(a.get("--model") + " is " +
                                 (model->config().hasDecoder() ? "a decoder-only" : "an encoder-only") +
                                 " model; eval scores translation models");
            auto pairs = core::readSentencePairs(a.get("--pairs"));
            if (limit > 0 && static_cast<std::size_t>(limit) < pairs.size())
                pairs.resize(static_cast<std::size_t>(limit));
            std::vector<std::string> sources, references;
            for (const auto& p : pairs) {
                sources.push_back(p.source);
                references.push_back(p.target);
            }
            // An output longer than twice the longest source (plus a margin) is a model that never stops;
            // cutting it there keeps an untrained model's evaluation from running to max_len on every
            // sentence.
            std::size_t longest = 0;
            for (const auto& src : sources)
                longest = std::max(longest, model->sourceTokens(src).size());
            const int maxAnswer = std::min(model->config().maxLen - 2, static_cast<int>(2 * longest + 10));
            const auto t0 = std::chrono::steady_clock::now();
            EvalProgress progress("pairs");
            const auto outputs = core::greedyAnswers(*model, sources, maxAnswer, std::ref(progress));
            progress.finish();
            const double secs = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
            std::map<std::string, std::pair<std::vector<std::string>, std::vector<std::string>>> byTag;
            for (std::size_t i = 0; i < pairs.size(); ++i) {
                auto& [hyp, ref] = byTag[pairs[i].tag.empty() ? "(untagged)" : pairs[i].tag];
                hyp.push_back(outputs[i]);
                ref.push_back(references[i]);
            }
            std::printf("%-12s %7s %7s %7s\n", "source", "pairs", "BLEU", "chrF");
            for (const auto& [tag, hr] : byTag)
                row(tag, hr.first, hr.second);
            row("all", outputs, references);
            std::printf("%zu pairs translated in %.1f s (%.1f ms per sentence, batched)\n", pairs.size(),
                        secs, 1000.0 * secs / static_cast<double>(std::max<std::size_t>(1, pairs.size())));
            if (a.has("--out")) {
                std::string tsv;
                for (std::size_t i = 0; i < pairs.size(); ++i)
                    tsv += pairs[i].source + "\t" + references[i] + "\t" + outputs[i] + "\t" + pairs[i].tag +
                           "\n";
                core::writeFileAtomically(a.get("--out"), tsv);
            }
            return 0;
        });
}
