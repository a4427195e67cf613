// The seed's recurrent attention models as model directories, run through the same Session as the
// Transformer, against the seed's PyTorch code (tests/reference/seed_rnn_reference.py): the classifier's
// pooling row and class distribution for each row of a padded batch, read alone; the GRU translator's
// alignment and distribution at every step, fed at once or a token at a time, and after stepping back; the
// additive score against tests/reference/additive_rnn.py. Models saved here load in the seed strictly.

#include "tests/support/ReferencePython.h"
#include "tests/support/SkipReport.h"

#include "core/base/Errors.h"
#include "core/base/Files.h"
#include "core/model/Model.h"
#include "core/model/ModelParts.h"
#include "core/run/Session.h"

#include <QTemporaryDir>
#include <QtTest>

#include <nlohmann/json.hpp>

#include <cmath>
#include <fstream>

using nlohmann::json;

class TestFamilies : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void initTestCase();
    void classifierRowsAloneMatchTheBatch();
    void translatorStepsMatchTheSeed_data();
    void translatorStepsMatchTheSeed();
    void savedModelsLoadInTheSeed();
    void insideRecomputesTheWeights();
    void parameterCountsMatchTheModules();
    void wrongUseIsAnInputError();

private:
    QString dir(const QString& name) const { return tmp_.filePath(name); }
    QTemporaryDir tmp_;
    json ref_;
    bool haveRef_ = false;
};

namespace {

// Word vocabularies whose ids are their positions: the specials, then w4, w5, … (the reference feeds ids).
std::string words(int size) {
    json v;
    const char* specials[] = {"<pad>", "<bos>", "<eos>", "<unk>"};
    for (int i = 0; i < size; ++i)
        v[i < 4 ? specials[i] : "w" + std::to_string(i)] = i;
    return v.dump();
}

void copyFile(const QString& from, const QString& to) {
    QFile::remove(to);
    QVERIFY2(QFile::copy(from, to), qPrintable(from));
}

void writeText(const QString& path, const std::string& text) {
    core::writeFileAtomically(path.toStdString(), text);
}

double logSoftmaxAt(const std::vector<double>& logits, std::size_t k) {
    double top = logits[0], sum = 0.0;
    for (const auto v : logits)
        top = std::max(top, v);
    for (const auto v : logits)
        sum += std::exp(v - top);
    return logits[k] - top - std::log(sum);
}

// The largest difference between a snapshot's cross rows and next-token distribution and the reference's
// steps 0..last (log-probabilities relative to their size past 1).
double compareSteps(const core::Session& s, const json& steps, std::size_t last) {
    const auto snap = s.snapshot();
    double worst = 0.0;
    for (std::size_t i = 0; i <= last; ++i) {
        const auto at = steps[i]["attention"].get<std::vector<double>>();
        std::vector<float> scratch;
        const float* row = snap.cross.row(0, 0, static_cast<int>(i), scratch);
        for (std::size_t j = 0; j < at.size(); ++j)
            worst = std::max(worst, std::abs(row[j] - at[j]));
    }
    const auto lp = steps[last]["log_probs"].get<std::vector<double>>();
    for (std::size_t v = 0; v < lp.size(); ++v)
        worst = std::max(worst, std::abs(snap.nextTokenLogProbs[v] - lp[v]) / std::max(1.0, std::abs(lp[v])));
    return worst;
}

} // namespace

void TestFamilies::initTestCase() {
    QVERIFY(tmp_.isValid());
    QString why;
    if (!runReferenceScript({QStringLiteral("seed_rnn_reference.py"), QStringLiteral("--out"), dir("seed")},
                            &why)) {
        if (!why.startsWith(QStringLiteral("skipped")))
            QFAIL(qPrintable(why));
        qInfo("%s", qPrintable(why)); // the cases that need the reference skip with this reason
        return;
    }
    std::ifstream in(dir(QStringLiteral("seed/reference.json")).toStdString());
    ref_ = json::parse(in);
    haveRef_ = true;
    // The seed's state_dicts as model directories: config.json, word vocabularies, the weights as saved.
    QDir().mkpath(dir("clf"));
    writeText(dir("clf/config.json"), R"({"family": "attention_classifier", "name": "clf", "embed_size": 12,
        "hidden_size": 10, "classes": ["red", "green", "blue"], "src_vocab_size": 30, "max_len": 16,
        "tokenizer": {"type": "word", "src_vocab": "vocab.json"}})");
    writeText(dir("clf/vocab.json"), words(30));
    copyFile(dir("seed/classifier.safetensors"), dir("clf/model.safetensors"));
    for (const auto* name : {"translator", "additive"}) {
        const auto d = dir(QString::fromLatin1(name));
        QDir().mkpath(d);
        writeText(d + QStringLiteral("/config.json"),
                  std::string(R"({"family": "gru_attention", "name": ")") + name +
                      R"(", "hidden_size": 16, "attention_score": ")" +
                      (std::string(name) == "additive" ? "additive" : "concat") +
                      R"(", "src_vocab_size": 25, "tgt_vocab_size": 28, "max_len": 16,
                      "tokenizer": {"type": "word", "src_vocab": "src.json", "tgt_vocab": "tgt.json"}})");
        writeText(d + QStringLiteral("/src.json"), words(25));
        writeText(d + QStringLiteral("/tgt.json"), words(28));
        copyFile(dir(QStringLiteral("seed/%1.safetensors").arg(QLatin1String(name))),
                 d + QStringLiteral("/model.safetensors"));
    }
}

void TestFamilies::classifierRowsAloneMatchTheBatch() {
    if (!haveRef_)
        QSKIP_MISSING("skipped: the seed's reference could not run (see the first line)");
    // The seed pads a batch and masks the padding out of the softmax; each row read alone (what the window
    // does) must weigh its tokens and score its classes exactly as its row of the batch did.
    const auto model = core::Model::load(dir("clf").toStdString(), core::DeviceChoice::Cpu);
    core::Session s(model);
    const auto& c = ref_["classifier"];
    double worst = 0.0;
    for (std::size_t b = 0; b < c["tokens"].size(); ++b) {
        const auto n = c["lengths"][b].get<std::size_t>();
        auto ids = c["tokens"][b].get<std::vector<int64_t>>();
        const auto padded = ids.size();
        ids.resize(n);
        s.analyzeIds(ids, {});
        const auto snap = s.snapshot();
        QVERIFY(snap.has(core::AttentionKind::Pooling));
        QVERIFY(!snap.has(core::AttentionKind::Cross) && !snap.has(core::AttentionKind::Encoder));
        QCOMPARE(snap.pooling.keys, static_cast<int>(n));
        for (std::size_t t = 0; t < padded; ++t) {
            const double expected = c["attention"][b][t].get<double>();
            if (t >= n) // the padding the seed masked carries exactly nothing
                QCOMPARE(expected, 0.0);
            else
                worst = std::max(worst, std::abs(snap.pooling.data[t] - expected));
        }
        const auto logits = c["logits"][b].get<std::vector<double>>();
        const auto& vocab = model->targetTokenizer().vocab();
        for (std::size_t k = 0; k < logits.size(); ++k) {
            const auto id = vocab.find(model->config().classes[k]);
            worst = std::max(worst, std::abs(snap.nextTokenLogProbs[id] - logSoftmaxAt(logits, k)));
        }
        QVERIFY(std::isinf(snap.nextTokenLogProbs[vocab.pad()])); // the specials are never an answer
        // What the window shows beside the weights: the scores before softmax, each token's share of each
        // logit, and the weights of the same row inside the seed's padded batch before its mask.
        const auto& d = snap.pooled;
        QCOMPARE(d.scores.size(), n);
        const auto beforeMask = d.padded(static_cast<int>(padded)).beforeMask;
        for (std::size_t t = 0; t < padded; ++t) {
            if (t < n)
                worst = std::max(worst, std::abs(d.scores[t] - c["scores"][b][t].get<double>()));
            worst = std::max(worst, std::abs(beforeMask[t] - c["before_mask"][b][t].get<double>()));
        }
        for (std::size_t k = 0; k < logits.size(); ++k) {
            double sum = d.bias[k];
            for (std::size_t t = 0; t < n; ++t) {
                worst =
                    std::max(worst, std::abs(d.contributions.at(static_cast<int>(k), static_cast<int>(t)) -
                                             c["contributions"][b][k][t].get<double>()));
                sum += d.contributions.at(static_cast<int>(k), static_cast<int>(t));
            }
            worst = std::max(worst, std::abs(sum - logits[k])); // the shares and the bias make the logit
        }
        QVERIFY(s.finished());
        QCOMPARE(s.step(), int64_t{-1});
    }
    qInfo("classifier, rows of lengths 6, 3, 4 read alone against the seed's padded batch (weights, logits, "
          "scores, weights before the mask, each token's share of each logit): largest difference %.3g",
          worst);
    QVERIFY(worst <= 1e-5);
}

void TestFamilies::translatorStepsMatchTheSeed_data() {
    QTest::addColumn<QString>("name");
    QTest::newRow("the seed's concatenating score") << QStringLiteral("translator");
    QTest::newRow("Bahdanau's additive score") << QStringLiteral("additive");
}

void TestFamilies::translatorStepsMatchTheSeed() {
    QFETCH(QString, name);
    if (!haveRef_)
        QSKIP_MISSING("skipped: the seed's reference could not run (see the first line)");
    const auto& t = ref_[name.toStdString()];
    const auto& steps = t["steps"];
    std::vector<int64_t> tgt;
    for (const auto& st : steps)
        tgt.push_back(st["input"].get<int64_t>());
    const auto model = core::Model::load(dir(name).toStdString(), core::DeviceChoice::Cpu);
    const auto src = t["src"].get<std::vector<int64_t>>();
    // The whole prefix in one pass.
    core::Session once(model);
    once.analyzeIds(src, tgt);
    const double whole = compareSteps(once, steps, steps.size() - 1);
    // A token at a time, each step checked, then back one step.
    core::Session stepped(model);
    stepped.analyzeIds(src, {tgt[0]});
    double worst = compareSteps(stepped, steps, 0);
    for (std::size_t i = 1; i < tgt.size(); ++i) {
        stepped.force(tgt[i]);
        worst = std::max(worst, compareSteps(stepped, steps, i));
    }
    QVERIFY(stepped.back());
    const double back = compareSteps(stepped, steps, steps.size() - 2);
    // The seed's score cannot depend on the decoder's state: every row is the first. Bahdanau's can.
    const auto snap = once.snapshot();
    double spread = 0.0;
    for (int r = 1; r < snap.cross.queries; ++r)
        for (int j = 0; j < snap.cross.keys; ++j)
            spread = std::max(
                spread, double(std::abs(snap.cross.data[r * snap.cross.keys + j] - snap.cross.data[j])));
    qInfo("%s, %zu steps: largest difference fed at once %.3g, a token at a time %.3g, after Back %.3g; rows "
          "differ from the first by up to %.3g",
          qPrintable(name), steps.size(), whole, worst, back, spread);
    QVERIFY(whole <= 1e-5 && worst <= 1e-5 && back <= 1e-5);
    if (name == QLatin1String("translator"))
        QVERIFY(spread < 1e-6);
    else
        QVERIFY(spread > 1e-4);
}

void TestFamilies::savedModelsLoadInTheSeed() {
    if (!haveRef_)
        QSKIP_MISSING("skipped: the seed's reference could not run (see the first line)");
    // Saved by Model::save (another folder, the same weights): the seed's modules load the files with
    // load_state_dict(strict=True) and compute what they computed before.
    const auto ours = dir("ours");
    QDir().mkpath(ours);
    for (const auto* name : {"clf", "translator", "additive"}) {
        const auto saved = dir(QStringLiteral("saved-%1").arg(QLatin1String(name)));
        core::Model::load(dir(QString::fromLatin1(name)).toStdString(), core::DeviceChoice::Cpu)
            ->save(saved.toStdString());
        QVERIFY(QFileInfo::exists(saved + QStringLiteral("/config.json")));
        const auto file =
            std::string(name) == "clf" ? QStringLiteral("classifier") : QString::fromLatin1(name);
        copyFile(saved + QStringLiteral("/model.safetensors"),
                 ours + QLatin1Char('/') + file + QStringLiteral(".safetensors"));
    }
    // A classifier's classes live in config.json: beside it, the weights and the source vocabulary only.
    const auto savedClf = QDir(dir("saved-clf")).entryList(QDir::Files);
    QCOMPARE(savedClf.size(), 3);
    QVERIFY2(core::readFile(dir("saved-clf/config.json").toStdString()).find("\"blue\"") != std::string::npos,
             qPrintable(savedClf.join(QLatin1Char(' '))));
    QString why;
    QVERIFY2(runReferenceScript({QStringLiteral("seed_rnn_reference.py"), QStringLiteral("--out"),
                                 dir("seed-on-ours"), QStringLiteral("--ours"), ours},
                                &why),
             qPrintable(why));
    std::ifstream in(dir(QStringLiteral("seed-on-ours/reference.json")).toStdString());
    const auto again = json::parse(in);
    for (const auto* key : {"classifier", "translator", "additive"})
        QVERIFY2(again[key] == ref_[key], key); // the same weights: the seed's outputs bit for bit
}

void TestFamilies::insideRecomputesTheWeights() {
    if (!haveRef_)
        QSKIP_MISSING("skipped: the seed's reference could not run (see the first line)");
    // The classifier's pooling row and every translator row recomputed from their parts: the scores, the
    // weights the softmax gives them and the context they pool.
    double worst = 0.0;
    const auto clf = core::Model::load(dir("clf").toStdString(), core::DeviceChoice::Cpu);
    core::Session c(clf);
    c.analyzeIds({4, 5, 6, 7}, {});
    const auto pool = c.inside({core::AttentionKind::Pooling, 0, 0, 0});
    QCOMPARE(pool.k.rows, 4);
    QCOMPARE(pool.k.cols, 20); // the BiLSTM's outputs, both directions
    QCOMPARE(static_cast<int>(pool.scores.size()), 4);
    for (std::size_t j = 0; j < pool.weights.size(); ++j)
        worst = std::max(worst, double(std::abs(pool.weights[j] - pool.captured[j])));
    for (const auto* name : {"translator", "additive"}) {
        core::Session s(
            core::Model::load(dir(QString::fromLatin1(name)).toStdString(), core::DeviceChoice::Cpu));
        s.analyzeIds(ref_[name]["src"].get<std::vector<int64_t>>(), {1, 10, 11});
        for (int r = 0; r < 3; ++r) {
            const auto row = s.inside({core::AttentionKind::Cross, 0, 0, r});
            QCOMPARE(row.x.cols, 16);
            for (std::size_t j = 0; j < row.weights.size(); ++j)
                worst = std::max(worst, double(std::abs(row.weights[j] - row.captured[j])));
        }
        QVERIFY_THROWS_EXCEPTION(core::InputError, s.inside({core::AttentionKind::Decoder, 0, 0, 0}));
        QVERIFY_THROWS_EXCEPTION(core::InputError, s.inside({core::AttentionKind::Cross, 0, 0, 3}));
    }
    qInfo("inside rows: weights recomputed from the scores within %.3g of the captured ones", worst);
    QVERIFY(worst <= 1e-6);
}

void TestFamilies::parameterCountsMatchTheModules() {
    // config.json's count, computed from the sizes without allocating, against the modules'.
    for (const auto* config : {R"({"family": "attention_classifier", "embed_size": 7, "hidden_size": 5,
                                  "classes": ["a", "b", "c"], "src_vocab_size": 40})",
                               R"({"family": "gru_attention", "hidden_size": 9, "src_vocab_size": 30,
                                  "tgt_vocab_size": 33})",
                               R"({"family": "gru_attention", "hidden_size": 9, "src_vocab_size": 30,
                                  "tgt_vocab_size": 33, "attention_score": "additive"})"}) {
        const auto c = core::ModelConfig::fromJson(config);
        const auto model = core::Model::createRandom(c, core::Model::defaultVocabulary(c.srcVocabSize),
                                                     core::Model::defaultVocabulary(c.tgtVocabSize), 1,
                                                     core::DeviceChoice::Cpu);
        int64_t n = 0;
        for (const auto& p : core::parts(*model).module().parameters())
            n += p.numel();
        QCOMPARE(c.parameterCount(), n);
    }
}

void TestFamilies::wrongUseIsAnInputError() {
    const auto c = core::ModelConfig::fromJson(R"({"family": "attention_classifier", "embed_size": 4,
        "hidden_size": 3, "classes": ["no", "yes"], "src_vocab_size": 100, "max_len": 8})");
    const auto model = core::Model::createRandom(c, core::Model::defaultVocabulary(100), core::Vocabulary(),
                                                 1, core::DeviceChoice::Cpu);
    core::Session s(model);
    s.analyze("abc");
    QCOMPARE(s.snapshot().pooling.keys, 5); // <bos> a b c <eos>
    // A classifier decodes nothing: forcing a token or giving a target prefix is refused, the run kept.
    QVERIFY_THROWS_EXCEPTION(core::InputError, s.force(4));
    QVERIFY_THROWS_EXCEPTION(core::InputError, s.analyze("abc", "yes"));
    QCOMPARE(s.snapshot().pooling.keys, 5);
    s.analyze("a much longer text"); // cut at max_len, as the Transformer's are
    QCOMPARE(s.snapshot().pooling.keys, 8);
    QVERIFY(s.snapshot().cut());
    // The Transformer's own computations name the family instead of crashing.
    try {
        core::parts(*model).logits({});
        QFAIL("a classifier ran the Transformer's generator");
    } catch (const core::InputError& e) {
        QVERIFY2(QString::fromStdString(e.what()).contains(QStringLiteral("attention_classifier family")),
                 e.what());
    }
}

ATTNSCOPE_GUILESS_MAIN(TestFamilies)
#include "test_families.moc"
