// The SentencePiece tokenizer: training a model, round trips, any typed character handled, bad model files
// refused with their name, and a model directory that carries its .model file and loads again.

#include "tests/support/TestModels.h"

#include "core/base/Errors.h"
#include "core/base/Files.h"
#include "core/run/Session.h"
#include "core/text/SentencePieceTokenizer.h"

#include <QTemporaryDir>
#include <QtTest>

#include <filesystem>

namespace {

// A small bilingual corpus from a grammar: enough for a few hundred pieces.
std::vector<std::string> corpus() {
    const char* det[] = {"the", "a", "my", "your", "el", "la", "un", "una"};
    const char* adj[] = {"red", "big", "old", "small", "new", "rojo", "grande", "viejo", "pequeña", "nueva"};
    const char* noun[] = {"car",   "house", "man",    "book",  "city",
                          "coche", "casa",  "hombre", "libro", "ciudad"};
    const char* verb[] = {"is", "was", "looks", "es", "parece", "está"};
    std::vector<std::string> out;
    for (const char* d : det)
        for (const char* a : adj)
            for (const char* n : noun)
                out.push_back(std::string(d) + " " + a + " " + n + " " + verb[out.size() % 6] + " here.");
    return out;
}

std::string trainedModel() {
    static const std::string bytes = [] {
        core::SentencePieceTokenizer::TrainOptions o;
        o.vocabSize = 400;
        o.threads = 1;
        return core::SentencePieceTokenizer::train(corpus(), o);
    }();
    return bytes;
}

} // namespace

class TestSentencePiece : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void trainedModelHasSpecials();
    void roundTrip_data();
    void roundTrip();
    void sameCorpusSameModel();
    void badModels();
    void modelDirectory();
};

void TestSentencePiece::trainedModelHasSpecials() {
    const auto t = core::SentencePieceTokenizer::fromBytes(trainedModel(), "test.model");
    QCOMPARE(t->vocab().size(), int64_t(400));
    QCOMPARE(t->vocab().pad(), int64_t(0));
    QCOMPARE(t->vocab().bos(), int64_t(1));
    QCOMPARE(t->vocab().eos(), int64_t(2));
    QCOMPARE(t->vocab().unk(), int64_t(3));
    // Frequent words of the corpus became single pieces with the word-start mark.
    const auto tokens = t->tokenize("the red car");
    QStringList texts;
    for (const auto& tok : tokens)
        texts << QString::fromStdString(tok.text);
    QCOMPARE(texts.join(QLatin1Char(' ')), QStringLiteral("▁the ▁red ▁car"));
}

void TestSentencePiece::roundTrip_data() {
    QTest::addColumn<QString>("text");
    QTest::newRow("corpus words") << "the old man is here.";
    QTest::newRow("unseen word") << "the zebra jumped";
    QTest::newRow("accents") << "la pequeña ciudad, ñandú";
    QTest::newRow("digits and symbols") << "€100 + 42% = ?";
    QTest::newRow("emoji") << "a red 😀 car";
    QTest::newRow("other scripts") << "日本語 и русский";
}

void TestSentencePiece::roundTrip() {
    QFETCH(QString, text);
    const auto t = core::SentencePieceTokenizer::fromBytes(trainedModel(), "test.model");
    const auto tokens = t->tokenize(text.toStdString());
    QVERIFY(!tokens.empty());
    std::vector<int64_t> ids;
    for (const auto& tok : tokens) {
        // Byte fallback: a character without a piece of its own becomes UTF-8 byte pieces, never <unk>.
        QVERIFY2(!tok.unknown, tok.text.c_str());
        QVERIFY(tok.id >= 0 && tok.id < t->vocab().size());
        ids.push_back(tok.id);
    }
    QCOMPARE(QString::fromStdString(t->detokenize(ids)), text);
    // Specials around the ids are left out of the text.
    ids.insert(ids.begin(), t->vocab().bos());
    ids.push_back(t->vocab().eos());
    QCOMPARE(QString::fromStdString(t->detokenize(ids)), text);
}

void TestSentencePiece::sameCorpusSameModel() {
    core::SentencePieceTokenizer::TrainOptions o;
    o.vocabSize = 400;
    o.threads = 1;
    QVERIFY(core::SentencePieceTokenizer::train(corpus(), o) == trainedModel());
    // Too large a vocabulary for the corpus is an error with the library's reason, not a crash.
    o.vocabSize = 100000;
    QVERIFY_THROWS_EXCEPTION(core::InputError, core::SentencePieceTokenizer::train(corpus(), o));
}

void TestSentencePiece::badModels() {
    try {
        core::SentencePieceTokenizer::fromBytes("not a model at all", "broken.model");
        QFAIL("garbage was accepted");
    } catch (const core::FormatError& e) {
        QVERIFY2(QString::fromUtf8(e.what()).contains(QStringLiteral("broken.model")), e.what());
    }
    // A model trained with SentencePiece's own defaults (<unk> <s> </s>, no pad) lacks our specials.
    const auto bytes = core::readFile(ATTNSCOPE_SOURCE_DIR "/tests/data/spm-defaults.model");
    try {
        core::SentencePieceTokenizer::fromBytes(bytes, "defaults.model");
        QFAIL("a model without <pad> was accepted");
    } catch (const core::FormatError& e) {
        const auto msg = QString::fromUtf8(e.what());
        QVERIFY2(msg.contains(QStringLiteral("defaults.model")) && msg.contains(QStringLiteral("<pad>")),
                 e.what());
    }
}

void TestSentencePiece::modelDirectory() {
    QTemporaryDir tmp;
    const auto dir = tmp.path().toStdString() + "/m";
    auto c = smallConfig(core::Architecture::EncoderDecoder, core::PositionalEncoding::Sinusoidal);
    c.tokenizer = core::TokenizerKind::SentencePiece;
    c.srcVocabFile = c.tgtVocabFile = "spm.model";
    c.srcVocabSize = c.tgtVocabSize = 400;
    const auto spm = core::SentencePieceTokenizer::fromBytes(trainedModel(), "spm.model");
    core::Model::createRandom(c, spm->clone(), spm->clone(), 3, core::DeviceChoice::Cpu)->save(dir);
    QVERIFY(core::readFile(dir + "/spm.model") == trainedModel());
    QVERIFY(!std::filesystem::exists(dir + "/vocab.json"));
    const auto m = core::Model::load(dir, core::DeviceChoice::Cpu);
    const auto tokens = m->sourceTokens("the big house");
    QStringList texts;
    for (const auto& t : tokens)
        texts << QString::fromStdString(t.text);
    QVERIFY2(texts.contains(QStringLiteral("▁house")), qPrintable(texts.join(QLatin1Char(' '))));
    // A sentence goes through the whole model: analysis and a decoding step.
    core::Session s(m);
    s.analyze("the big house");
    s.step();
    QCOMPARE(s.decodedCount(), int64_t(1));
    // config.json's size must match the model file's.
    auto json = QString::fromStdString(core::readFile(dir + "/config.json"));
    json.replace(QStringLiteral("\"tgt_vocab_size\": 400"), QStringLiteral("\"tgt_vocab_size\": 321"));
    core::writeFileAtomically(dir + "/config.json", json.toStdString());
    try {
        core::Model::load(dir, core::DeviceChoice::Cpu);
        QFAIL("a size mismatch was accepted");
    } catch (const core::ModelError& e) {
        QVERIFY2(QString::fromUtf8(e.what()).contains(QStringLiteral("spm.model")), e.what());
    }
}

QTEST_APPLESS_MAIN(TestSentencePiece)
#include "test_sentencepiece.moc"
