// sacreBLEU's 13a tokenizer (tokenizers/tokenizer_13a.py, tokenizer_re.py), which BLEU scores through, and
// the strict UTF-8 decoding every metric shares.

#include "core/analysis/Tokenizer13a.h"
#include "core/base/Errors.h"

#include <QtTest>

#include <string>

class TestTokenizer13a : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void tokenizer_data();
    void tokenizer();
    void invalidUtf8();
};

void TestTokenizer13a::tokenizer_data() {
    QTest::addColumn<QString>("input");
    QTest::addColumn<QString>("expected");

    // sacreBLEU's suite has no literal 13a token strings; it checks the tokenizer through scores (13a vs
    // none: 48.53 vs 49.19 in test_corpus_bleu, 8.493 vs 7.347 in test_sentence_bleu, both rows of bleu()).
    // These rows are ours, derived by hand from tokenizer_13a.py / tokenizer_re.py, rule by rule.
    // The test_sentence_bleu.py sentences: only the ';' is split off, the Romanian letters stay.
    QTest::newRow("test_sentence_bleu REF")
        << QStringLiteral("producţia de zahăr brut se exprimă în zahăr alb;")
        << QStringLiteral("producţia de zahăr brut se exprimă în zahăr alb ;");
    QTest::newRow("test_sentence_bleu SYS")
        << QStringLiteral("Producția de zahăr primă va fi exprimată în ceea ce privește zahărul alb;")
        << QStringLiteral("Producția de zahăr primă va fi exprimată în ceea ce privește zahărul alb ;");
    // The README corpus: the apostrophe is not split, the final period is.
    QTest::newRow("README hypothesis")
        << QStringLiteral("It wasn't surprising.") << QStringLiteral("It wasn't surprising .");
    // Periods and commas stay inside numbers; "$" is a symbol.
    QTest::newRow("numbers") << QStringLiteral("It costs $3,000.50, or 4.5 million-ish.")
                             << QStringLiteral("It costs $ 3,000.50 , or 4.5 million-ish .");
    // A period or comma next to a digit on one side only is split from the other side.
    QTest::newRow("digit one side") << QStringLiteral("a.b,c 3.d e.4 5,6 ..., etc.")
                                    << QStringLiteral("a . b , c 3 . d e . 4 5,6 . . . , etc .");
    // A dash splits only after a digit.
    QTest::newRow("dashes") << QStringLiteral("1990-2000 and well-known e-mail")
                            << QStringLiteral("1990 - 2000 and well-known e-mail");
    QTest::newRow("brackets and symbols")
        << QStringLiteral("Hello, world! (test) [x] {y} a/b ~t^ `q` |p| _u_")
        << QStringLiteral("Hello , world ! ( test ) [ x ] { y } a / b ~ t ^ ` q ` | p | _ u _");
    // Entities are unescaped in one pass each, in order: "&amp;lt;" becomes "&lt;", then "<".
    QTest::newRow("entities") << QStringLiteral("&quot;Quoted&quot; &amp; &lt;tag&gt; &amp;lt;")
                              << QStringLiteral("\" Quoted \" & < tag > <");
    // <skipped> vanishes, "-\n" joins a hyphenated line break, other newlines are spaces.
    QTest::newRow("skipped and line breaks")
        << QStringLiteral("<skipped> line-\nbreak\nnext") << QStringLiteral("linebreak next");
    // Unicode whitespace (no-break space, ideographic space) separates tokens as in Python's str.split().
    QTest::newRow("unicode whitespace")
        << QStringLiteral("  spaced \t out\u00a0nbsp \u3000ideo  ") << QStringLiteral("spaced out nbsp ideo");
    QTest::newRow("Spanish") << QStringLiteral("El niño comió 2,5 kg de ñame.")
                             << QStringLiteral("El niño comió 2,5 kg de ñame .");
    QTest::newRow("empty") << QString() << QString();
}

void TestTokenizer13a::tokenizer() {
    QFETCH(QString, input);
    QFETCH(QString, expected);
    QCOMPARE(QString::fromStdString(core::tokenize13a(input.toStdString())), expected);
}

void TestTokenizer13a::invalidUtf8() {
    // Truncated, overlong and surrogate encodings and a stray byte are errors, not mis-decoded text.
    for (const std::string bad : {"\xC3", "\xC0\xAF", "\xED\xA0\x80", "\xFF"})
        QVERIFY_THROWS_EXCEPTION(core::InputError, core::tokenize13a(bad));
    QCOMPARE(core::text13a::decodeUtf8("a\xC3\xB1", "text"), std::u32string(U"a\u00F1"));
}

QTEST_APPLESS_MAIN(TestTokenizer13a)
#include "test_tokenizer13a.moc"
