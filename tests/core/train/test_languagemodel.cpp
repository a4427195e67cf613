// Language-model training end to end: the recipe, learning, export, resume, batches and the kept vocabulary.

#include "tests/support/TrainingFixtures.h"

#include "core/analysis/Perplexity.h"
#include "core/base/Errors.h"
#include "core/base/Files.h"
#include "core/model/Model.h"
#include "core/run/Analyze.h"
#include "core/text/BpeTokenizer.h"
#include "core/text/TextCorpus.h"
#include "core/train/LanguageModelData.h"
#include "core/train/Trainer.h"

#include <QTemporaryDir>
#include <QtTest>

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <random>
#include <set>

namespace {

std::vector<int64_t> idsOf(const std::vector<core::Token>& tokens) {
    std::vector<int64_t> ids;
    for (const auto& t : tokens)
        ids.push_back(t.id);
    return ids;
}

std::string weights(const std::string& modelDir) {
    return core::readFile(modelDir + "/model.safetensors");
}

} // namespace

class TestLanguageModel : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void shippedRecipe();
    void languageModelLearns();
    void exportLoadsBack();
    void resumeIsExact();
    void batchIds();
    void vocabularyIsKept();
    void dataErrors();
};

void TestLanguageModel::shippedRecipe() {
    const auto r = core::TrainRecipe::fromFile(ATTNSCOPE_SOURCE_DIR "/resources/recipes/tiny-lm.json");
    QCOMPARE(r.task, core::TaskKind::LanguageModel);
    // The model it makes reads byte-level BPE of the size the recipe learns.
    const auto c = r.modelConfig();
    QCOMPARE(c.architecture, core::Architecture::DecoderOnly);
    QCOMPARE(c.tokenizer, core::TokenizerKind::ByteBpe);
    QCOMPARE(c.tgtVocabSize, r.bpeVocabSize);
    QCOMPARE(c.mergesFile, std::string("merges.txt"));
    // Its corpus paths resolve into the repository's data directory.
    QVERIFY2(r.resolve(r.corpus).find("data/tiny-lm/train.txt") != std::string::npos,
             r.resolve(r.corpus).c_str());
    // The language-model fields survive the trip through a run's recipe.json.
    const auto back = core::TrainRecipe::fromJson(r.toJson(), "back.json", r.baseDir);
    QCOMPARE(back.task, r.task);
    QCOMPARE(back.corpus, r.corpus);
    QCOMPARE(back.valid, r.valid);
    QCOMPARE(back.bpeVocabSize, r.bpeVocabSize);
}

void TestLanguageModel::languageModelLearns() {
    QTemporaryDir data, out;
    writeTextCorpus(data.path());
    const auto run = out.path().toStdString();
    core::Trainer t(lmRecipe(data.path()), run);
    QCOMPARE(t.metricName(), std::string("perplexity"));
    // The vocabulary is learned into the run before the first step.
    QVERIFY(std::filesystem::exists(run + "/bpe/vocab.json"));
    QVERIFY(std::filesystem::exists(run + "/bpe/merges.txt"));
    const double before = t.evaluate(1000, 0);
    const double firstLoss = t.trainStep().loss;
    while (!t.done())
        t.trainStep();
    const double after = t.evaluate(1000, 0);
    qInfo("tiny language model, 40 steps: loss %.3f -> %.3f, held-out perplexity %.1f -> %.1f", firstLoss,
          t.stats().loss, before, after);
    QVERIFY(std::isfinite(before) && std::isfinite(after));
    QVERIFY(before > 1.0 && after > 1.0);
    QVERIFY(t.stats().loss < firstLoss * 0.7);
    QVERIFY(after < before * 0.5);
    // The held-out figure is the perplexity of the valid text under the current weights.
    const core::LanguageModelData text(t.recipe(), run);
    const auto direct = core::perplexity(*t.currentModel(), text.valid());
    QVERIFY(std::abs(direct.perplexity - after) < 1e-9 * after);
}

void TestLanguageModel::exportLoadsBack() {
    QTemporaryDir data, out;
    writeTextCorpus(data.path());
    const auto run = out.path().toStdString();
    core::Trainer t(lmRecipe(data.path()), run);
    for (int i = 0; i < 3; ++i)
        t.trainStep();
    t.exportModel();
    const auto dir = run + "/model";
    for (const char* f : {"config.json", "vocab.json", "merges.txt", "model.safetensors"})
        QVERIFY2(std::filesystem::exists(dir + "/" + f), f);
    const auto config = nlohmann::json::parse(core::readFile(dir + "/config.json"));
    QCOMPARE(config.at("tokenizer").at("type").get<std::string>(), std::string("byte_bpe"));
    QCOMPARE(config.at("tokenizer").at("merges").get<std::string>(), std::string("merges.txt"));
    QCOMPARE(config.at("architecture").get<std::string>(), std::string("decoder_only"));
    QCOMPARE(config.at("tgt_vocab_size").get<int>(), 300);
    // The model ships the vocabulary it was trained with.
    QVERIFY(core::readFile(dir + "/vocab.json") == core::readFile(run + "/bpe/vocab.json"));
    QVERIFY(core::readFile(dir + "/merges.txt") == core::readFile(run + "/bpe/merges.txt"));

    const auto loaded = core::Model::load(dir, core::DeviceChoice::Cpu);
    const auto live = t.currentModel();
    QCOMPARE(loaded->config().tokenizer, core::TokenizerKind::ByteBpe);
    const std::string sentence = "the old man watches a wooden house in the morning, naïvely.";
    const auto runTokenizer = core::BpeTokenizer::fromFiles(run + "/bpe/vocab.json", run + "/bpe/merges.txt");
    const auto ids = idsOf(loaded->targetTokenizer().tokenize(sentence));
    QCOMPARE(ids, idsOf(runTokenizer->tokenize(sentence)));
    QCOMPARE(ids, idsOf(live->targetTokenizer().tokenize(sentence)));
    QCOMPARE(loaded->targetTokenizer().detokenize(ids), sentence);
    // Learned pieces, not bytes: fewer tokens than the sentence has bytes, a common word in one.
    QVERIFY2(ids.size() < sentence.size() * 3 / 4, qPrintable(QString::number(ids.size())));
    QCOMPARE(loaded->targetTokenizer().tokenize(" the").size(), std::size_t(1));
    // The same weights: the same next-token distribution after a prompt that fits the window.
    const auto prompt = idsOf(loaded->targetTokens("the old man watches a wooden house."));
    QCOMPARE(prompt, idsOf(live->targetTokens("the old man watches a wooden house.")));
    QVERIFY(prompt.size() <= 32);
    QCOMPARE(core::analyze(*loaded, {}, prompt, false).nextTokenLogProbs,
             core::analyze(*live, {}, prompt, false).nextTokenLogProbs);
}

void TestLanguageModel::resumeIsExact() {
    QTemporaryDir data, straight, split;
    writeTextCorpus(data.path());
    const auto r = lmRecipe(data.path(), 12);
    double straightLoss = 0.0;
    {
        core::Trainer t(r, straight.path().toStdString());
        while (!t.done())
            t.trainStep();
        straightLoss = t.stats().loss;
        t.exportModel();
    }
    {
        core::Trainer t(r, split.path().toStdString());
        for (int i = 0; i < 5; ++i) {
            t.trainStep();
            t.log();
        }
        t.saveCheckpoint();
        t.trainStep(); // lost with the process
        t.log();
    }
    const auto stored = core::readFile(split.path().toStdString() + "/recipe.json");
    QVERIFY2(stored.find("\"language_model\"") != std::string::npos, stored.c_str());
    QVERIFY2(stored.find("\"bpe_vocab_size\": 300") != std::string::npos, stored.c_str());
    auto t = core::Trainer::resume(split.path().toStdString());
    QCOMPARE(t->stats().step, int64_t(5));
    QCOMPARE(t->metricName(), std::string("perplexity"));
    while (!t->done()) {
        t->trainStep();
        t->log();
    }
    t->exportModel();
    // Bit for bit: the same vocabulary, the same batches from (seed, step), the same optimizer state.
    QCOMPARE(t->stats().loss, straightLoss);
    QVERIFY(weights(split.path().toStdString() + "/model") ==
            weights(straight.path().toStdString() + "/model"));
    const auto log = QString::fromStdString(core::readFile(split.path().toStdString() + "/log.csv"));
    QCOMPARE(log.split(QLatin1Char('\n'), Qt::SkipEmptyParts).size(), 1 + 12);
}

void TestLanguageModel::batchIds() {
    QTemporaryDir data, a, b, c;
    writeTextCorpus(data.path());
    const auto r = lmRecipe(data.path());
    core::Trainer t(r, a.path().toStdString());
    const auto batch = t.batchIds(3);
    QCOMPARE(batch.rows, int64_t(8));
    QCOMPARE(batch.srcLen, int64_t(0));
    QCOMPARE(batch.tgtLen, int64_t(32));
    QCOMPARE(batch.input.size(), std::size_t(8 * 32));
    QCOMPARE(batch.labels.size(), std::size_t(8 * 32));

    // Every row is a window of the training stream that starts at a document, behind <bos>; the labels are
    // the input shifted by one.
    const auto run = a.path().toStdString();
    const auto tok = core::BpeTokenizer::fromFiles(run + "/bpe/vocab.json", run + "/bpe/merges.txt");
    const core::TextCorpus corpus(core::TextCorpus::readDocuments(r.resolve(r.corpus)), *tok);
    std::set<std::vector<int64_t>> windows;
    for (std::size_t d = 0; d < corpus.documents(); ++d)
        windows.insert(corpus.window(d, 32));
    std::set<std::vector<int64_t>> rows;
    int64_t counted = 0;
    for (int64_t i = 0; i < batch.rows; ++i) {
        const auto in = batch.input.begin() + i * 32, lab = batch.labels.begin() + i * 32;
        QCOMPARE(*in, tok->vocab().bos());
        QVERIFY(std::equal(in + 1, in + 32, lab));
        std::vector<int64_t> row(in, in + 32);
        row.push_back(*(lab + 31));
        QVERIFY2(windows.count(row), qPrintable(QStringLiteral("row %1").arg(i)));
        rows.insert(row);
        counted += std::count_if(lab, lab + 32, [&](int64_t id) { return id != tok->vocab().pad(); });
    }
    QCOMPARE(batch.tokens, counted);
    QVERIFY(rows.size() >= 2); // drawn, not one document over and over

    // A function of (seed, step): again, and in another run of the same recipe, the same batch.
    const auto again = t.batchIds(3);
    QVERIFY(again.input == batch.input && again.labels == batch.labels);
    t.trainStep();
    QVERIFY(t.batchIds(3).input == batch.input);
    core::Trainer other(r, b.path().toStdString());
    QVERIFY(other.batchIds(3).input == batch.input);
    QVERIFY(other.batchIds(4).input != batch.input);
    auto reseeded = r;
    reseeded.seed = 8;
    core::Trainer third(reseeded, c.path().toStdString());
    QVERIFY(third.batchIds(3).input != batch.input);
}

void TestLanguageModel::vocabularyIsKept() {
    // The vocabulary is learned once per run; opening the run again reads it back, even when the text it was
    // learned from has changed since (a resume must tokenize exactly as before).
    QTemporaryDir data, out;
    writeTextCorpus(data.path());
    const auto r = lmRecipe(data.path());
    const auto run = out.path().toStdString();
    std::string vocab;
    {
        const core::LanguageModelData first(r, run);
        vocab = first.tokenizer().bpe().vocabJson();
        QCOMPARE(first.tokenizer().vocab().size(), int64_t(300));
        QCOMPARE(first.train().documents(), std::size_t(300));
        QCOMPARE(first.valid().documents(), std::size_t(30));
    }
    writeLines(data.path() + QStringLiteral("/train.txt"),
               {"quite different words now", "and fewer of them"});
    const core::LanguageModelData second(r, run);
    QCOMPARE(second.tokenizer().bpe().vocabJson(), vocab);
    QCOMPARE(second.train().documents(), std::size_t(2));
    // A run whose stored vocabulary disagrees with the recipe is refused, naming the file and the field.
    auto bigger = r;
    bigger.bpeVocabSize = 310;
    try {
        core::LanguageModelData third(bigger, run);
        QFAIL("a vocabulary of the wrong size was accepted");
    } catch (const core::ModelError& e) {
        QVERIFY2(QString::fromUtf8(e.what()).contains(QStringLiteral("bpe_vocab_size")), e.what());
        QVERIFY2(QString::fromUtf8(e.what()).contains(QStringLiteral("vocab.json")), e.what());
    }
}

void TestLanguageModel::dataErrors() {
    QTemporaryDir data;
    writeTextCorpus(data.path());
    {
        // A corpus too small for the vocabulary asked for.
        QTemporaryDir out;
        writeLines(data.path() + QStringLiteral("/small.txt"), {"hi there", "hi again"});
        auto r = lmRecipe(data.path());
        r.corpus = "small.txt";
        try {
            core::Trainer t(r, out.path().toStdString());
            QFAIL("a corpus too small for bpe_vocab_size was accepted");
        } catch (const core::ModelError& e) {
            QVERIFY2(QString::fromUtf8(e.what()).contains(QStringLiteral("bpe_vocab_size is 300")), e.what());
            QVERIFY2(QString::fromUtf8(e.what()).contains(QStringLiteral("small.txt")), e.what());
        }
        // The failed start leaves nothing behind that the next one would take for the run's vocabulary: with
        // enough text the same command in the same directory succeeds.
        writeLines(data.path() + QStringLiteral("/small.txt"), sentences(300, 3));
        core::Trainer t(r, out.path().toStdString());
        QCOMPARE(t.currentModel()->targetTokenizer().vocab().size(), int64_t(300));
    }
    {
        // The held-out text is missing but kept compressed.
        QTemporaryDir out;
        auto r = lmRecipe(data.path());
        r.valid = "missing.txt";
        core::writeFileAtomically((data.path() + QStringLiteral("/missing.txt.xz")).toStdString(), "x");
        try {
            core::Trainer t(r, out.path().toStdString());
            QFAIL("a missing valid file was accepted");
        } catch (const core::IoError& e) {
            QVERIFY2(QString::fromUtf8(e.what()).contains(QStringLiteral("xz -dk")), e.what());
            QVERIFY2(QString::fromUtf8(e.what()).contains(QStringLiteral("missing.txt.xz")), e.what());
        }
    }
}

QTEST_GUILESS_MAIN(TestLanguageModel)
#include "test_languagemodel.moc"
