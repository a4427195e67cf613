// Training: the recipe format, the generated tasks, the learning-rate schedule, reproducibility from the
// seed, exact resumption from a checkpoint, and that a small model really learns.

#include "tests/support/TrainingFixtures.h"

#include "core/base/Errors.h"
#include "core/base/Files.h"
#include "core/run/Analyze.h"
#include "core/train/Tasks.h"
#include "core/train/Trainer.h"

#include <QTemporaryDir>
#include <QtTest>

#include <cmath>
#include <filesystem>
#include <set>

namespace {

core::TrainRecipe tinyRecipe(const std::string& task = "copy", const std::string& arch = "encoder_decoder") {
    return core::TrainRecipe::fromJson(R"({"name": "tiny", "task": ")" + task +
                                       R"(", "min_len": 1, "max_len": 4,
        "model": {"architecture": ")" + arch +
                                       R"(", "encoder_layers": 1, "decoder_layers": 1, "d_model": 32,
                  "heads": 2, "d_ff": 64},
        "batch_size": 16, "steps": 12, "warmup": 20, "length_buckets": 4, "seed": 3})");
}

std::string weights(const std::string& modelDir) {
    return core::readFile(modelDir + "/model.safetensors");
}

} // namespace

class TestTrainer : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void tasks_data();
    void tasks();
    void samplesAreValid_data();
    void samplesAreValid();
    void schedule();
    void recipeErrors_data();
    void recipeErrors();
    void sameSeedSameRun();
    void resumeIsExact();
    void malformedStateRefused_data();
    void malformedStateRefused();
    void learnsCopy();
    void decoderOnlyLearns();
    void attentionOnlyLearnsInduction();
    void currentModelMatchesExport();
    void translationFromCorpus();
    void translationCorpusErrors();
};

void TestTrainer::tasks_data() {
    QTest::addColumn<QString>("task");
    QTest::addColumn<QString>("source");
    QTest::addColumn<QString>("target");
    QTest::newRow("copy") << "copy"
                          << "abcj"
                          << "abcj";
    QTest::newRow("reverse") << "reverse"
                             << "abcj"
                             << "jcba";
    QTest::newRow("sort") << "sort"
                          << "3102"
                          << "0123";
    // 321 + 54 written least-significant digit first: 123 + 45 = 168 → "861".
    QTest::newRow("addition") << "addition"
                              << "321+54"
                              << "861";
    QTest::newRow("addition carry") << "addition"
                                    << "99+1"
                                    << "001"; // 99 + 1 = 100
    QTest::newRow("induction") << "induction"
                               << "qWeRt"
                               << "qWeRt"; // the segment again
}

void TestTrainer::tasks() {
    QFETCH(QString, task);
    QFETCH(QString, source);
    QFETCH(QString, target);
    const core::Task t(core::Task::parseKind(task.toStdString()), 1, 5);
    QCOMPARE(QString::fromStdString(t.solve(source.toStdString())), target);
}

void TestTrainer::samplesAreValid_data() {
    QTest::addColumn<QString>("task");
    for (const char* t : {"copy", "reverse", "sort", "addition", "induction"})
        QTest::newRow(t) << t;
}

void TestTrainer::samplesAreValid() {
    QFETCH(QString, task);
    const core::Task t(core::Task::parseKind(task.toStdString()), 2, 4);
    std::set<std::string> alphabet;
    for (const auto& a : t.alphabet())
        alphabet.insert(a);
    std::mt19937_64 rng(5);
    std::set<std::size_t> lengths;
    for (int i = 0; i < 500; ++i) {
        const auto e = t.sample(rng);
        QCOMPARE(e.target, t.solve(e.source));
        QVERIFY(static_cast<int>(e.source.size()) <= t.maxSourceLength());
        QVERIFY(static_cast<int>(e.target.size()) <= t.maxTargetLength());
        for (char c : e.source + e.target)
            QVERIFY2(alphabet.count(std::string(1, c)), e.source.c_str());
        lengths.insert(e.source.size());
        if (t.kind() ==
            core::TaskKind::Induction) // no letter twice: the one after its first time is the answer
            QCOMPARE(std::set<char>(e.source.begin(), e.source.end()).size(), e.source.size());
    }
    QVERIFY(lengths.size() >= 3); // lengths vary over the range
}

void TestTrainer::schedule() {
    // lr = factor · d^-0.5 · min(step^-0.5, step · warmup^-1.5): rising until warmup, then falling.
    const double peak = core::Trainer::learningRate(400, 64, 400, 1.0);
    QVERIFY(std::abs(peak - std::pow(64.0, -0.5) * std::pow(400.0, -0.5)) < 1e-12);
    QVERIFY(core::Trainer::learningRate(100, 64, 400, 1.0) < peak);
    QVERIFY(core::Trainer::learningRate(1600, 64, 400, 1.0) < peak);
    QVERIFY(std::abs(core::Trainer::learningRate(1600, 64, 400, 1.0) - peak / 2) < 1e-12);
    QVERIFY(std::abs(core::Trainer::learningRate(10, 64, 400, 2.0) - 2 * 0.125 * 10 * std::pow(400.0, -1.5)) <
            1e-12);
}

void TestTrainer::recipeErrors_data() {
    QTest::addColumn<QString>("json");
    QTest::addColumn<QString>("fragment");
    QTest::newRow("unknown field") << R"({"task": "copy", "stepz": 3})"
                                   << "unknown field 'stepz'";
    QTest::newRow("bad task") << R"({"task": "juggle"})"
                              << "unknown task 'juggle'";
    QTest::newRow("translation without corpus") << R"({"task": "translation"})"
                                                << "names its 'corpus' and 'valid'";
    QTest::newRow("tiny spm vocabulary")
        << R"({"task": "translation", "corpus": "a.tsv", "valid": "b.tsv", "spm_vocab_size": 100})"
        << "spm_vocab_size must be at least 300";
    QTest::newRow("bad lengths") << R"({"task": "copy", "min_len": 5, "max_len": 2})"
                                 << "min_len <= max_len";
    // Found by fuzzing: the model's max_len, max_len + 2 (or twice it + 3), overflowed int.
    QTest::newRow("max_len past int") << R"({"task": "sort", "max_len": 2147483647})"
                                      << "max_len <= 1024, got 1..2147483647";
    QTest::newRow("max_len decoder-only")
        << R"({"task": "copy", "max_len": 1025, "model": {"architecture": "decoder_only"}})"
        << "max_len <= 1024";
    QTest::newRow("max_tokens past int")
        << R"({"task": "translation", "corpus": "a.tsv", "valid": "b.tsv", "max_tokens": 2147483647})"
        << "max_tokens must be in 1..65536";
    QTest::newRow("bad model") << R"({"model": {"d_model": 30, "heads": 4}})"
                               << "not divisible";
    QTest::newRow("steps") << R"({"steps": 0})"
                           << "steps must be at least 1";
    QTest::newRow("word tokenizer") << R"({"model": {"tokenizer": {"type": "word"}}})"
                                    << "must be char";
    QTest::newRow("not json") << "{"
                              << "not valid JSON";
    // Sizes that used to be allocated before anyone asked whether they fit: the process aborted.
    QTest::newRow("batch_size 2^31-1") << R"({"batch_size": 2147483647})"
                                       << "batch_size must be in 1..65536";
    QTest::newRow("batch_size past int") << R"({"batch_size": 2147483648})"
                                         << "field 'batch_size' is out of range";
    QTest::newRow("negative seed") << R"({"seed": -1})"
                                   << "field 'seed' is out of range";
    QTest::newRow("task max_len 10^6") << R"({"task": "copy", "max_len": 1000000})"
                                       << "max_len <= 1024, got 1..1000000";
    QTest::newRow("step beyond memory")
        << R"({"task": "copy", "max_len": 1024, "batch_size": 65536, "model": {"d_model": 1024, "heads": 16}})"
        << "a training step of batch_size 65536 on sequences of 1026 tokens would need";
    // With every size near its limit the estimate passes 2^63: it saturates instead of overflowing.
    QTest::newRow("step past int64")
        << R"({"task": "translation", "corpus": "a.tsv", "valid": "b.tsv", "batch_size": 65536,
               "max_tokens": 65536, "model": {"d_model": 1024, "heads": 1024, "d_ff": 64,
               "encoder_layers": 256, "decoder_layers": 256}})"
        << "on sequences of 65538 tokens would need 8.0 EB";
    QTest::newRow("model beyond memory") << R"({"model": {"d_model": 65536, "heads": 1, "d_ff": 1048576}})"
                                         << "the weights of this model need";
    // A language-model recipe with the given fields, its model decoder-only unless they say otherwise.
    const auto lm = [](const char* fields, const char* arch = "decoder_only") {
        return QStringLiteral(R"({"task": "language_model", "model": {"architecture": "%1"}, %2})")
            .arg(QString::fromUtf8(arch), QString::fromUtf8(fields));
    };
    QTest::newRow("no corpus") << lm(R"("valid": "v.txt")") << "names its 'corpus' and 'valid' text files";
    QTest::newRow("no valid") << lm(R"("corpus": "c.txt")") << "names its 'corpus' and 'valid' text files";
    QTest::newRow("encoder-decoder") << lm(R"("corpus": "c.txt", "valid": "v.txt")", "encoder_decoder")
                                     << "a language model is decoder_only";
    QTest::newRow("default architecture")
        << R"({"task": "language_model", "corpus": "c.txt", "valid": "v.txt"})"
        << "a language model is decoder_only";
    QTest::newRow("bpe_vocab_size 259") << lm(R"("corpus": "c.txt", "valid": "v.txt", "bpe_vocab_size": 259)")
                                        << "bpe_vocab_size must be at least 260";
    QTest::newRow("bpe_vocab_size not a number")
        << lm(R"("corpus": "c.txt", "valid": "v.txt", "bpe_vocab_size": "big")")
        << "'bpe_vocab_size' must be an integer";
}

void TestTrainer::recipeErrors() {
    QFETCH(QString, json);
    QFETCH(QString, fragment);
    try {
        core::TrainRecipe::fromJson(json.toStdString(), "r.json");
        QFAIL("accepted");
    } catch (const core::Error& e) {
        QVERIFY2(QString::fromUtf8(e.what()).contains(fragment), e.what());
        QVERIFY2(QString::fromUtf8(e.what()).startsWith(QStringLiteral("r.json")), e.what());
    }
}

void TestTrainer::sameSeedSameRun() {
    QTemporaryDir a, b, c;
    auto run = [](const core::TrainRecipe& r, const QString& dir) {
        core::Trainer t(r, dir.toStdString());
        while (!t.done())
            t.trainStep();
        t.exportModel();
        return weights(dir.toStdString() + "/model");
    };
    const auto r = tinyRecipe();
    QCOMPARE(run(r, a.path()), run(r, b.path()));
    auto other = r;
    other.seed = 4;
    QVERIFY(run(other, c.path()) != weights(a.path().toStdString() + "/model"));
}

void TestTrainer::malformedStateRefused_data() {
    QTest::addColumn<QString>("state");
    QTest::addColumn<QString>("fragment");
    QTest::newRow("empty object") << "{}"
                                  << "\"recipe\" is missing";
    QTest::newRow("no recipe") << R"({"step": 3, "elapsed_seconds": 1.0})"
                               << "\"recipe\" is missing";
    QTest::newRow("string step") << R"({"recipe": {}, "step": "3", "elapsed_seconds": 1.0})"
                                 << "\"step\" is missing or not a whole number";
    QTest::newRow("negative step") << R"({"recipe": {}, "step": -1, "elapsed_seconds": 1.0})"
                                   << "\"step\"";
    QTest::newRow("no time") << R"({"recipe": {}, "step": 3})"
                             << "\"elapsed_seconds\"";
    QTest::newRow("string loss") << R"({"recipe": {}, "step": 3, "elapsed_seconds": 1.0, "loss": "x"})"
                                 << "\"loss\" is not a number";
    QTest::newRow("not json") << "{\"step\": "
                              << "not valid JSON";
}

void TestTrainer::malformedStateRefused() {
    // `train --resume` on a hand-edited or half-written state.json: a message naming the file, not a crash.
    QFETCH(QString, state);
    QFETCH(QString, fragment);
    QTemporaryDir dir;
    const auto out = dir.path().toStdString();
    std::filesystem::create_directories(out + "/checkpoint");
    core::writeFileAtomically(out + "/checkpoint/state.json", state.toStdString());
    for (int which = 0; which < 2; ++which) {
        try {
            if (which == 0)
                core::Trainer::resume(out);
            else
                core::Trainer::savedRecipe(out);
            QFAIL("accepted");
        } catch (const core::FormatError& e) {
            const auto msg = QString::fromStdString(e.what());
            QVERIFY2(msg.contains(fragment) && msg.contains(QStringLiteral("state.json")), e.what());
        }
    }
}

void TestTrainer::resumeIsExact() {
    QTemporaryDir straight, split;
    const auto r = tinyRecipe();
    {
        core::Trainer t(r, straight.path().toStdString());
        while (!t.done()) {
            t.trainStep();
            t.log();
        }
        t.exportModel();
    }
    {
        core::Trainer t(r, split.path().toStdString());
        for (int i = 0; i < 5; ++i) {
            t.trainStep();
            t.log();
        }
        t.saveCheckpoint();
        t.trainStep(); // steps after the checkpoint are lost with the process
        t.log();
    }
    namespace fs = std::filesystem;
    QVERIFY(fs::exists(split.path().toStdString() + "/checkpoint/optimizer.safetensors"));
    QVERIFY(!fs::exists(split.path().toStdString() + "/checkpoint.new"));
    auto t = core::Trainer::resume(split.path().toStdString());
    QCOMPARE(t->stats().step, int64_t(5));
    while (!t->done()) {
        t->trainStep();
        t->log();
    }
    t->exportModel();
    // Bit for bit: the optimizer state and the data stream continue exactly.
    QVERIFY(weights(split.path().toStdString() + "/model") ==
            weights(straight.path().toStdString() + "/model"));
    // The log has one row per step, 1..12, the row of the lost step 6 replaced.
    const auto log = QString::fromStdString(core::readFile(split.path().toStdString() + "/log.csv"));
    const auto rows = log.split(QLatin1Char('\n'), Qt::SkipEmptyParts);
    QCOMPARE(rows.size(), 1 + 12);
    for (int i = 1; i <= 12; ++i)
        QVERIFY2(rows[i].startsWith(QString::number(i) + QLatin1Char(',')), qPrintable(rows[i]));
    QVERIFY_THROWS_EXCEPTION(core::Error, core::Trainer::resume(straight.path().toStdString() + "/nothing"));
}

void TestTrainer::learnsCopy() {
    QTemporaryDir dir;
    auto r = tinyRecipe("copy");
    r.steps = 300;
    r.warmup = 50;
    core::Trainer t(r, dir.path().toStdString());
    const double before = t.evaluate(200, 11);
    const double firstLoss = t.trainStep().loss;
    while (!t.done())
        t.trainStep();
    const double after = t.evaluate(200, 11);
    qInfo("copy, 300 steps of a 1+1-layer d=32 model: loss %.3f -> %.3f, exact match %.1f%% -> %.1f%%",
          firstLoss, t.stats().loss, 100 * before, 100 * after);
    QVERIFY(t.stats().loss < firstLoss * 0.5);
    QVERIFY(after > 0.5);
    QVERIFY(after > before + 0.4);
}

void TestTrainer::decoderOnlyLearns() {
    QTemporaryDir dir;
    auto r = tinyRecipe("copy", "decoder_only");
    r.steps = 300;
    r.warmup = 50;
    core::Trainer t(r, dir.path().toStdString());
    const double firstLoss = t.trainStep().loss;
    while (!t.done())
        t.trainStep();
    const double acc = t.evaluate(100, 11);
    qInfo("decoder-only copy, 300 steps: loss %.3f -> %.3f, exact match %.1f%%", firstLoss, t.stats().loss,
          100 * acc);
    QVERIFY(t.stats().loss < firstLoss * 0.6);
    t.exportModel();
    QVERIFY(std::filesystem::exists(dir.path().toStdString() + "/model/config.json"));
}

void TestTrainer::attentionOnlyLearnsInduction() {
    // d_ff 0: two attention-only layers on segments given twice, the setting induction heads form in.
    QTemporaryDir dir;
    auto r = tinyRecipe("induction", "decoder_only");
    r.model.dFf = 0;
    r.model.decoderLayers = 2;
    r.minLen = 4;
    r.maxLen = 8;
    r.steps = 300;
    r.warmup = 50;
    core::Trainer t(r, dir.path().toStdString());
    QCOMPARE(t.currentModel()->config().dFf, 0);
    const double firstLoss = t.trainStep().loss;
    while (!t.done())
        t.trainStep();
    qInfo("attention-only induction, 300 steps: loss %.3f -> %.3f", firstLoss, t.stats().loss);
    QVERIFY(t.stats().loss < firstLoss * 0.8);
    t.exportModel();
    const auto model = core::Model::load(dir.path().toStdString() + "/model", core::DeviceChoice::Cpu);
    QCOMPARE(model->config().dFf, 0);
    QCOMPARE(model->config().tgtVocabSize, 52 + 4);
}

void TestTrainer::currentModelMatchesExport() {
    QTemporaryDir dir;
    core::Trainer t(tinyRecipe(), dir.path().toStdString());
    for (int i = 0; i < 3; ++i)
        t.trainStep();
    t.exportModel();
    const auto live = t.currentModel();
    const auto loaded = core::Model::load(dir.path().toStdString() + "/model", core::DeviceChoice::Cpu);
    const auto a = core::analyze(*live, {1, 5, 6, 2}, {1, 7});
    const auto b = core::analyze(*loaded, {1, 5, 6, 2}, {1, 7});
    QCOMPARE(a.cross.data, b.cross.data);
    QCOMPARE(a.nextTokenLogProbs, b.nextTokenLogProbs);
}

void TestTrainer::translationFromCorpus() {
    QTemporaryDir data, straight, split;
    writeTranslationCorpus(data.path());
    const auto r = translationRecipe(data.path());
    const auto out = straight.path().toStdString();
    {
        core::Trainer t(r, out);
        QCOMPARE(t.metricName(), std::string("chrF"));
        // The joint SentencePiece model is trained once, kept in the run, and is the vocabulary.
        QVERIFY(std::filesystem::exists(out + "/spm.model"));
        const auto b = t.batchIds(0);
        QCOMPARE(b.rows, int64_t(8));
        for (auto id : b.src)
            QVERIFY(id >= 0 && id < 300);
        while (!t.done())
            t.trainStep();
        t.exportModel();
        const double chrf = t.evaluate(6, 0);
        QVERIFY2(chrf >= 0.0 && chrf <= 1.0, qPrintable(QString::number(chrf)));
    }
    // The exported model directory carries spm.model and translates through the normal loader.
    const auto m = core::Model::load(out + "/model", core::DeviceChoice::Cpu);
    QCOMPARE(m->config().tokenizer, core::TokenizerKind::SentencePiece);
    QVERIFY(core::readFile(out + "/model/spm.model") == core::readFile(out + "/spm.model"));
    // The run's recipe names the corpus relative to the run, and a resume is exact for translation too.
    const auto stored = QString::fromStdString(core::readFile(out + "/recipe.json"));
    QVERIFY2(!stored.contains(data.path()), qPrintable(stored));
    {
        core::Trainer t(r, split.path().toStdString());
        for (int i = 0; i < 5; ++i)
            t.trainStep();
        t.saveCheckpoint();
    }
    auto t = core::Trainer::resume(split.path().toStdString());
    while (!t->done())
        t->trainStep();
    t->exportModel();
    QVERIFY(weights(split.path().toStdString() + "/model") == weights(out + "/model"));
}

void TestTrainer::translationCorpusErrors() {
    QTemporaryDir data;
    writeTranslationCorpus(data.path());
    auto r = translationRecipe(data.path());
    r.corpus = "missing.tsv";
    core::writeFileAtomically((data.path() + QStringLiteral("/missing.tsv.xz")).toStdString(), "x");
    QTemporaryDir out;
    try {
        core::Trainer t(r, out.path().toStdString());
        QFAIL("a missing corpus was accepted");
    } catch (const core::IoError& e) {
        QVERIFY2(QString::fromUtf8(e.what()).contains(QStringLiteral("xz -dk")), e.what());
    }
    r = translationRecipe(data.path());
    core::writeFileAtomically((data.path() + QStringLiteral("/valid.tsv")).toStdString(),
                              "only one column\n");
    try {
        core::Trainer t(r, out.path().toStdString());
        QFAIL("a malformed corpus was accepted");
    } catch (const core::FormatError& e) {
        QVERIFY2(QString::fromUtf8(e.what()).contains(QStringLiteral("valid.tsv:1")), e.what());
    }
}

QTEST_GUILESS_MAIN(TestTrainer)
#include "test_trainer.moc"
