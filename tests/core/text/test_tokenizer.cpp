// Character and word tokenizers: round trips, unknown pieces kept and marked, vocab.json checks.

#include "core/base/Errors.h"
#include "core/text/CharTokenizer.h"
#include "core/text/WordTokenizer.h"

#include <QtTest>

using namespace core;

class TestTokenizer : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void charRoundTrip();
    void charUnknownAndInvalidUtf8();
    void words();
    void vocabErrors_data();
    void vocabErrors();
};

void TestTokenizer::charRoundTrip() {
    CharTokenizer tok(Vocabulary::fromTokens({"h", "e", "l", "o", " ", "é"}));
    const auto ts = tok.tokenize("hé llo");
    QCOMPARE(ts.size(), std::size_t(6)); // é is one token, not two bytes
    std::vector<int64_t> ids;
    for (const auto& t : ts) {
        QVERIFY(!t.unknown);
        ids.push_back(t.id);
    }
    QCOMPARE(tok.detokenize(ids), std::string("hé llo"));
}

void TestTokenizer::charUnknownAndInvalidUtf8() {
    CharTokenizer tok(Vocabulary::fromTokens({"a"}));
    const auto ts = tok.tokenize(std::string("a\xff"
                                             "b\xe2\x82\xac"));
    QCOMPARE(ts.size(), std::size_t(4));
    QVERIFY(!ts[0].unknown);
    QVERIFY(ts[1].unknown && ts[1].text == "\xff");
    QVERIFY(ts[2].unknown && ts[2].text == "b");
    QVERIFY(ts[3].unknown && ts[3].text == "\xe2\x82\xac"); // € kept whole
    QCOMPARE(ts[3].id, tok.vocab().unk());
}

void TestTokenizer::words() {
    WordTokenizer tok(Vocabulary::fromTokens({"the", "red", "car", "isn't", ",", ".", "(", ")", "fast"}),
                      true);
    QCOMPARE(tok.pieces("The red car, isn't (fast)."),
             (std::vector<std::string>{"the", "red", "car", ",", "isn't", "(", "fast", ")", "."}));
    std::vector<int64_t> ids;
    for (const auto& t : tok.tokenize("The red car, isn't (fast).")) {
        QVERIFY(!t.unknown);
        ids.push_back(t.id);
    }
    QCOMPARE(tok.detokenize(ids), std::string("the red car, isn't (fast)."));
    const auto unk = tok.tokenize("the blue car");
    QVERIFY(unk[1].unknown && unk[1].text == "blue");
}

void TestTokenizer::vocabErrors_data() {
    QTest::addColumn<QString>("json");
    QTest::addColumn<QString>("fragment");
    QTest::newRow("no specials") << R"({"a": 0})"
                                 << "'<pad>' is missing";
    QTest::newRow("gap") << R"({"<pad>": 0, "<bos>": 1, "<eos>": 2, "<unk>": 5})"
                         << "contiguous";
    QTest::newRow("dup id") << R"({"<pad>": 0, "<bos>": 1, "<eos>": 2, "<unk>": 2})"
                            << "used by two tokens";
    QTest::newRow("not int") << R"({"<pad>": "0"})"
                             << "not an integer";
    QTest::newRow("not json") << "{"
                              << "not valid JSON";
}

void TestTokenizer::vocabErrors() {
    QFETCH(QString, json);
    QFETCH(QString, fragment);
    try {
        Vocabulary::fromJson(json.toStdString(), "v.json");
        QFAIL("accepted a bad vocabulary");
    } catch (const FormatError& e) {
        QVERIFY2(QString::fromStdString(e.what()).contains(fragment), e.what());
    }
}

QTEST_APPLESS_MAIN(TestTokenizer)
#include "test_tokenizer.moc"
