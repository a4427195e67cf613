// Training the seed's recurrent attention models with the one Trainer: a classifier learning labelled texts
// (its word vocabulary learned and kept in the run), the GRU translator learning a generated task and a
// small corpus; each resumed from a checkpoint exactly, each exported as a model directory the window opens;
// and the recipes that pair a family with a task it cannot learn refused.

#include "tests/support/TrainingFixtures.h"

#include "core/base/Errors.h"
#include "core/base/Files.h"
#include "core/run/Session.h"
#include "core/train/TaskEval.h"
#include "core/train/Trainer.h"

#include <QTemporaryDir>
#include <QtTest>

#include <filesystem>

class TestFamilyTraining : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void classifierLearnsTexts();
    void resumeIsExact_data();
    void resumeIsExact();
    void gruLearnsReverse();
    void recipeErrors_data();
    void recipeErrors();
    void corpusErrors();
};

namespace {

// Texts whose class a few words decide: offers are spam, notes about the day are ham. 120 lines for
// training, 40 held out.
void writeLabelledCorpus(const QString& dir) {
    const char* offers[] = {"win a free prize now", "cheap pills online", "claim your cash reward",
                            "free money click here", "limited offer buy now"};
    const char* notes[] = {"the meeting moved to monday", "see you at lunch", "here are the slides",
                           "the build passed again", "call me after the talk"};
    const char* fillers[] = {"hello", "friend", "today", "please", "thanks", "regards"};
    std::string train, valid;
    for (int i = 0; i < 160; ++i) {
        const bool spam = i % 2 == 0;
        const std::string text = std::string(fillers[i % 6]) + " " + (spam ? offers : notes)[(i / 2) % 5] +
                                 " " + fillers[(i / 3) % 6];
        (i < 120 ? train : valid) += std::string(spam ? "spam" : "ham") + "\t" + text + "\n";
    }
    core::writeFileAtomically((dir + QStringLiteral("/train.tsv")).toStdString(), train);
    core::writeFileAtomically((dir + QStringLiteral("/valid.tsv")).toStdString(), valid);
}

core::TrainRecipe classifierRecipe(const QString& dir) {
    return core::TrainRecipe::fromJson(R"({"name": "tiny-clf", "task": "classification",
        "corpus": "train.tsv", "valid": "valid.tsv", "word_vocab_size": 30, "max_tokens": 12,
        "model": {"family": "attention_classifier", "embed_size": 16, "hidden_size": 12,
                  "classes": ["ham", "spam"]},
        "batch_size": 16, "steps": 12, "warmup": 20, "length_buckets": 4, "seed": 5, "eval_examples": 40,
        "label_smoothing": 0})",
                                       "tiny-clf.json", dir.toStdString());
}

core::TrainRecipe gruRecipe(const std::string& task, const std::string& extra = {}) {
    return core::TrainRecipe::fromJson(R"({"name": "tiny-gru", "task": ")" + task + R"(", "min_len": 1,
        "max_len": 5, "model": {"family": "gru_attention", "hidden_size": 32, "attention_score": "additive"},
        "batch_size": 32, "steps": 12, "warmup": 40, "length_buckets": 4, "seed": 3)" +
                                       extra + "}");
}

std::string weights(const std::string& modelDir) {
    return core::readFile(modelDir + "/model.safetensors");
}

} // namespace

void TestFamilyTraining::classifierLearnsTexts() {
    QTemporaryDir data, out;
    writeLabelledCorpus(data.path());
    auto r = classifierRecipe(data.path());
    r.steps = 120;
    core::Trainer t(r, out.path().toStdString());
    QCOMPARE(t.metricName(), std::string("accuracy"));
    const double before = t.evaluate(40, 0);
    const double firstLoss = t.trainStep().loss;
    while (!t.done())
        t.trainStep();
    const double after = t.evaluate(40, 0);
    qInfo("classifier, 120 steps on 120 texts: loss %.3f -> %.3f, held-out accuracy %.1f%% -> %.1f%%",
          firstLoss, t.stats().loss, 100 * before, 100 * after);
    QVERIFY(after >= 0.95);
    QVERIFY(t.stats().loss < 0.5 * firstLoss);
    // The word vocabulary is learned once and kept; the model directory names its classes and opens in a
    // Session whose answer is a class.
    const auto dir = out.path().toStdString();
    QVERIFY(std::filesystem::exists(dir + "/vocab.json"));
    t.exportModel();
    const auto model = core::Model::load(dir + "/model", core::DeviceChoice::Cpu);
    QCOMPARE(model->config().family, core::Family::AttentionClassifier);
    QVERIFY(core::readFile(dir + "/model/vocab.json") == core::readFile(dir + "/vocab.json"));
    const auto answers = core::classifyTexts(*model, {"win a free prize now", "see you at lunch"});
    QCOMPARE(answers, (std::vector<std::string>{"spam", "ham"}));
    core::Session s(model);
    s.analyze("claim your cash reward");
    const auto snap = s.snapshot();
    QCOMPARE(snap.pooling.keys, 6); // <bos> claim your cash reward <eos>
    const auto spam = model->targetTokenizer().vocab().find("spam");
    QVERIFY(snap.nextTokenLogProbs[spam] > std::log(0.5f));
}

void TestFamilyTraining::resumeIsExact_data() {
    QTest::addColumn<QString>("family");
    QTest::newRow("attention_classifier") << QStringLiteral("classifier");
    QTest::newRow("gru_attention, reverse") << QStringLiteral("gru");
    QTest::newRow("gru_attention, translation") << QStringLiteral("gru-mt");
}

void TestFamilyTraining::resumeIsExact() {
    QFETCH(QString, family);
    QTemporaryDir data, straight, split;
    core::TrainRecipe r;
    if (family == QLatin1String("classifier")) {
        writeLabelledCorpus(data.path());
        r = classifierRecipe(data.path());
    } else if (family == QLatin1String("gru")) {
        r = gruRecipe("reverse");
    } else {
        writeTranslationCorpus(data.path());
        auto t = translationRecipe(data.path());
        t.model = core::ModelConfig::fromJson(R"({"family": "gru_attention", "hidden_size": 24})");
        r = core::TrainRecipe::fromJson(t.toJson(), "gru-mt.json", data.path().toStdString());
    }
    {
        core::Trainer t(r, straight.path().toStdString());
        while (!t.done())
            t.trainStep();
        t.exportModel();
    }
    {
        core::Trainer t(r, split.path().toStdString());
        for (int i = 0; i < 5; ++i)
            t.trainStep();
        t.saveCheckpoint();
        t.trainStep(); // lost with the process
    }
    auto t = core::Trainer::resume(split.path().toStdString());
    QCOMPARE(t->stats().step, int64_t(5));
    while (!t->done())
        t->trainStep();
    t->exportModel();
    // Bit for bit: the optimizer state, the dropout's stream and the data continue exactly.
    QVERIFY(weights(split.path().toStdString() + "/model") ==
            weights(straight.path().toStdString() + "/model"));
    // A live copy of the weights (what the Train tab shows) computes what the exported model does.
    const auto live = t->currentModel();
    const auto saved = core::Model::load(straight.path().toStdString() + "/model", core::DeviceChoice::Cpu);
    core::Session a(live), b(saved);
    const std::string text = family == QLatin1String("classifier") ? "free money" : "abc";
    a.analyze(text);
    b.analyze(text);
    QCOMPARE(a.snapshot().nextTokenLogProbs, b.snapshot().nextTokenLogProbs);
}

void TestFamilyTraining::gruLearnsReverse() {
    QTemporaryDir out;
    auto r = gruRecipe("reverse");
    r.steps = 400;
    core::Trainer t(r, out.path().toStdString());
    QCOMPARE(t.metricName(), std::string("exact match"));
    const double firstLoss = t.trainStep().loss;
    while (!t.done())
        t.trainStep();
    const double acc = t.evaluate(200, 11);
    qInfo("GRU with additive attention, reverse of 1-5 letters, 400 steps: loss %.3f -> %.3f, exact match "
          "%.1f%%",
          firstLoss, t.stats().loss, 100 * acc);
    QVERIFY(t.stats().loss < 0.5 * firstLoss);
    QVERIFY(acc > 0.2);
}

void TestFamilyTraining::recipeErrors_data() {
    QTest::addColumn<QString>("json");
    QTest::addColumn<QString>("fragment");
    QTest::newRow("classification by a transformer")
        << R"({"task": "classification", "corpus": "a.tsv", "valid": "b.tsv"})"
        << "classification trains the attention_classifier family";
    QTest::newRow("a classifier copying")
        << R"({"task": "copy", "model": {"family": "attention_classifier", "classes": ["a", "b"]}})"
        << "the attention_classifier family only learns classification";
    QTest::newRow("a GRU language model")
        << R"({"task": "language_model", "corpus": "a.txt", "valid": "b.txt",
              "model": {"family": "gru_attention"}})"
        << "is no language model";
    QTest::newRow("no corpus")
        << R"({"task": "classification", "model": {"family": "attention_classifier", "classes": ["a", "b"]}})"
        << "names its 'corpus' and 'valid' TSV files";
    QTest::newRow("tiny vocabulary")
        << R"({"task": "classification", "corpus": "a.tsv", "valid": "b.tsv", "word_vocab_size": 4,
              "model": {"family": "attention_classifier", "classes": ["a", "b"]}})"
        << "word_vocab_size must be in 5..1048576";
}

void TestFamilyTraining::recipeErrors() {
    QFETCH(QString, json);
    QFETCH(QString, fragment);
    try {
        core::TrainRecipe::fromJson(json.toStdString(), "r.json");
        QFAIL("accepted");
    } catch (const core::ConfigError& e) {
        QVERIFY2(QString::fromUtf8(e.what()).contains(fragment), e.what());
    }
}

void TestFamilyTraining::corpusErrors() {
    QTemporaryDir data, out;
    writeLabelledCorpus(data.path());
    // A label the model lacks names its line; a vocabulary larger than the words the texts hold is refused.
    core::writeFileAtomically((data.path() + QStringLiteral("/valid.tsv")).toStdString(),
                              "ham\tfine\nspma\ttypo\n");
    try {
        core::Trainer t(classifierRecipe(data.path()), out.path().toStdString());
        QFAIL("an unknown label was accepted");
    } catch (const core::FormatError& e) {
        QVERIFY2(QString::fromUtf8(e.what()).contains(QStringLiteral("line 2 has the label \"spma\"")),
                 e.what());
    }
    writeLabelledCorpus(data.path());
    auto r = classifierRecipe(data.path());
    r.wordVocabSize = 5000;
    try {
        core::Trainer t(r, out.path().toStdString());
        QFAIL("a vocabulary past the corpus was accepted");
    } catch (const core::InputError& e) {
        QVERIFY2(QString::fromUtf8(e.what()).contains(QStringLiteral("distinct words")), e.what());
    }
}

QTEST_GUILESS_MAIN(TestFamilyTraining)
#include "test_familytraining.moc"
