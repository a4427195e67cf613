// The shipped English→Spanish model (resources/models/en-es): its cross-attention aligns adjectives and
// nouns across the reordering ("the red car" → "el coche rojo"), and anything a user types is translated
// or refused with a message, never a crash.

#include "core/base/Errors.h"
#include "core/model/Model.h"
#include "core/run/Session.h"

#include <QtTest>

#include <filesystem>
#include <fstream>
#include <sstream>

namespace {

const std::string kModel = ATTNSCOPE_SOURCE_DIR "/resources/models/en-es";
const std::string kPhrases = ATTNSCOPE_SOURCE_DIR "/tests/data/adjective-noun-en-es.tsv";
// The layer whose head-averaged cross-attention the alignment figure is about (0-based). The README and the
// program's tooltip point learners to it.
constexpr int kAlignLayer = 1;

struct Phrase {
    std::string english, enAdj, enNoun, esAdj, esNoun;
};

std::vector<Phrase> readPhrases() {
    std::ifstream in(kPhrases);
    std::vector<Phrase> out;
    std::string line;
    while (std::getline(in, line)) {
        std::istringstream f(line);
        Phrase p;
        std::getline(f, p.english, '\t');
        std::getline(f, p.enAdj, '\t');
        std::getline(f, p.enNoun, '\t');
        std::getline(f, p.esAdj, '\t');
        std::getline(f, p.esNoun, '\t');
        out.push_back(p);
    }
    return out;
}

const std::string kWordStart = "\u2581"; // SentencePiece's word-start mark

/// Words of a token sequence as [first, last) token ranges; specials are not part of any word.
struct Word {
    std::string text;
    int first = 0, last = 0;
};

std::vector<Word> words(const std::vector<core::Token>& tokens) {
    std::vector<Word> out;
    for (int i = 0; i < static_cast<int>(tokens.size()); ++i) {
        const auto& t = tokens[std::size_t(i)];
        if (t.special)
            continue;
        const bool starts = t.text.rfind(kWordStart, 0) == 0;
        if (starts || out.empty() || out.back().last != i) {
            out.push_back({starts ? t.text.substr(kWordStart.size()) : t.text, i, i + 1});
        } else {
            out.back().text += t.text;
            out.back().last = i + 1;
        }
    }
    return out;
}

const Word* findWord(const std::vector<Word>& ws, const std::string& text) {
    for (const auto& w : ws)
        if (w.text == text)
            return &w;
    return nullptr;
}

/// The source key that the head-averaged cross-attention of `layer` weighs most when the decoder produces
/// the target token at `produced` (its query is the token fed just before it).
int peakSourceKey(const core::AttentionSnapshot& s, int layer, int produced) {
    const auto& c = s.cross;
    const int q = produced - 1;
    int best = 0;
    float bestW = -1.0f;
    for (int k = 0; k < c.keys; ++k) {
        float w = 0.0f;
        for (int h = 0; h < c.heads; ++h)
            w += c.at(layer, h, q, k);
        if (w > bestW) {
            bestW = w;
            best = k;
        }
    }
    return best;
}

// Loaded once: every case reads the same immutable model.
std::shared_ptr<const core::Model> loadModel() {
    static const auto model = core::Model::load(kModel, core::DeviceChoice::Cpu);
    return model;
}

core::AttentionSnapshot translate(core::Session& s, const std::string& text) {
    s.analyze(text);
    while (!s.finished())
        s.step();
    return s.snapshot();
}

} // namespace

class TestTranslationModel : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void shipped();
    void adjectiveNounAlignment();
    void typedInput_data();
    void typedInput();
    void refusedInput_data();
    void refusedInput();
    void longInputIsCut();
};

void TestTranslationModel::shipped() {
    QVERIFY2(std::filesystem::exists(kModel + "/model.safetensors"), kModel.c_str());
    // The weights ship as float16: about 15 MB, not 30.
    QVERIFY(std::filesystem::file_size(kModel + "/model.safetensors") < 20'000'000);
    const auto model = loadModel();
    QVERIFY(model->config().hasEncoder());
    core::Session s(model);
    translate(s, "the red car");
    QCOMPARE(QString::fromStdString(s.decodedText()), QStringLiteral("el coche rojo"));
}

void TestTranslationModel::adjectiveNounAlignment() {
    const auto phrases = readPhrases();
    QCOMPARE(phrases.size(), std::size_t(50));
    const auto model = loadModel();
    const int layers = model->config().decoderLayers;
    QVERIFY(kAlignLayer < layers);
    core::Session session(model);

    // hits[layer]: phrases in which both the adjective and the noun peak on their English word.
    std::vector<int> hits(std::size_t(layers), 0);
    int translated = 0;
    QStringList misses;
    for (const auto& p : phrases) {
        const auto snap = translate(session, p.english);
        const auto src = words(snap.srcTokens);
        const auto tgt = words(snap.tgtTokens);
        const Word* enAdj = findWord(src, p.enAdj);
        const Word* enNoun = findWord(src, p.enNoun);
        QVERIFY2(enAdj && enNoun, p.english.c_str());
        const Word* esAdj = findWord(tgt, p.esAdj);
        const Word* esNoun = findWord(tgt, p.esNoun);
        // A phrase translated with other words has no adjective or noun to look at: it counts as a miss.
        if (!esAdj || !esNoun) {
            misses << QString::fromStdString(p.english + " → " + session.decodedText() + " (other words)");
            continue;
        }
        ++translated;
        for (int l = 0; l < layers; ++l) {
            const int a = peakSourceKey(snap, l, esAdj->first);
            const int n = peakSourceKey(snap, l, esNoun->first);
            const bool ok = a >= enAdj->first && a < enAdj->last && n >= enNoun->first && n < enNoun->last;
            hits[std::size_t(l)] += ok ? 1 : 0;
            if (!ok && l == kAlignLayer)
                misses << QString::fromStdString(p.english + " → " + session.decodedText());
        }
    }
    QString figures;
    for (int l = 0; l < layers; ++l)
        figures += QStringLiteral("layer %1: %2/%3  ").arg(l).arg(hits[std::size_t(l)]).arg(phrases.size());
    qInfo().noquote() << "translated with Apertium's words:" << translated << "of" << phrases.size();
    qInfo().noquote() << "adjective→adjective and noun→noun (mean over heads):" << figures;
    if (!misses.isEmpty())
        qInfo().noquote() << "misses in layer" << kAlignLayer << ":" << misses.join(QStringLiteral("; "));
    QVERIFY2(hits[std::size_t(kAlignLayer)] * 100 >= 80 * static_cast<int>(phrases.size()),
             qPrintable(figures));
}

void TestTranslationModel::typedInput_data() {
    QTest::addColumn<QString>("text");
    QTest::newRow("sentence") << QStringLiteral("My sister lives in a small town near the sea.");
    QTest::newRow("capitals and digits") << QStringLiteral("THE 3 RED CARS ARE 25 YEARS OLD!");
    QTest::newRow("emoji") << QStringLiteral("the dog 🐕 is happy 😀");
    QTest::newRow("other scripts") << QStringLiteral("Tokyo is 東京 and Moscow is Москва");
    QTest::newRow("tabs and runs of spaces") << QStringLiteral("the\tcat    sleeps");
    QTest::newRow("accents") << QStringLiteral("café naïve façade");
}

void TestTranslationModel::typedInput() {
    QFETCH(QString, text);
    core::Session s(loadModel());
    const auto snap = translate(s, text.toStdString());
    QVERIFY(snap.srcTokens.size() > 2);
    QVERIFY(s.finished());
    QVERIFY(!s.decodedText().empty());
    // Every captured cross-attention row is a distribution over the source.
    const auto& c = snap.cross;
    for (int l = 0; l < c.layers; ++l)
        for (int h = 0; h < c.heads; ++h)
            for (int q = 0; q < c.queries; ++q) {
                double sum = 0.0;
                for (int k = 0; k < c.keys; ++k)
                    sum += c.at(l, h, q, k);
                QVERIFY(std::abs(sum - 1.0) < 1e-4);
            }
}

void TestTranslationModel::refusedInput_data() {
    QTest::addColumn<QString>("text");
    QTest::addColumn<QString>("expected");
    QTest::newRow("empty") << QString() << QStringLiteral("empty");
}

void TestTranslationModel::refusedInput() {
    QFETCH(QString, text);
    QFETCH(QString, expected);
    core::Session s(loadModel());
    try {
        s.analyze(text.toStdString());
        QFAIL("no error");
    } catch (const core::InputError& e) {
        QVERIFY2(QString::fromUtf8(e.what()).contains(expected, Qt::CaseInsensitive), e.what());
    }
}

void TestTranslationModel::longInputIsCut() {
    // 1,200 words: the first max_len tokens are read, and the snapshot says how many the text had.
    const auto model = loadModel();
    core::Session s(model);
    const auto text = QStringLiteral("the red car ").repeated(400).toStdString();
    s.analyze(text);
    const auto snap = s.snapshot();
    QCOMPARE(int(snap.srcTokens.size()), model->config().maxLen);
    QCOMPARE(snap.readTokens, model->config().maxLen);
    QCOMPARE(std::size_t(snap.textTokens), model->sourceTokens(text).size());
    QVERIFY(snap.cut());
}

QTEST_GUILESS_MAIN(TestTranslationModel)
#include "test_translationmodel.moc"
