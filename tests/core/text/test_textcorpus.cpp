// TextCorpus and Perplexity: a corpus's token stream and windows, and perplexity checked prefix by prefix.

#include "tests/support/LanguageModelFixtures.h"
#include "tests/support/TestModels.h"

#include "core/analysis/Perplexity.h"
#include "core/base/Errors.h"
#include "core/base/Files.h"
#include "core/run/Analyze.h"
#include "core/text/BpeTokenizer.h"
#include "core/text/ByteLevelBpe.h"
#include "core/text/TextCorpus.h"

#include "tests/support/SkipReport.h"

#include <QProcess>
#include <QTemporaryDir>
#include <QtTest>

#include <algorithm>
#include <cmath>
#include <memory>

namespace {

// A small random language model over a BPE vocabulary, in the shape the tiny-lm recipe trains.
std::shared_ptr<const core::Model> randomLanguageModel(const core::ByteLevelBpe& bpe, int maxLen) {
    auto c = smallConfig(core::Architecture::DecoderOnly, core::PositionalEncoding::Learned,
                         core::LayerNormKind::Standard);
    c.tgtVocabSize = static_cast<int>(bpe.size());
    c.maxLen = maxLen;
    c.activation = core::Activation::GeluTanh;
    c.scaleEmbeddings = false;
    c.tieOutput = true;
    c.tokenizer = core::TokenizerKind::ByteBpe;
    return core::Model::createRandom(c, nullptr, std::make_unique<core::BpeTokenizer>(bpe), 7,
                                     core::DeviceChoice::Cpu);
}

} // namespace

class TestTextCorpus : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void corpusStream();
    void corpusWindow();
    void readDocuments();
    void readDocumentsErrors();
    void readsCompressed();

    void perplexityOneWindow();
    void perplexityShortWindows();
    void perplexityNeedsDecoderOnly();
};

void TestTextCorpus::corpusStream() {
    const core::BpeTokenizer tok(trainBpe(repeatedBpeText(), 300));
    // Repeated words (tokenized once, then reused), spaces in runs and contractions (pieces that must come
    // out the same on their own as inside their line).
    const std::vector<std::string> docs = {"the cat sat on the mat", "café", "the cat", "mississippi the cat",
                                           "it's  two   spaces\tand don't"};
    const core::TextCorpus corpus(docs, tok);
    std::vector<int32_t> expected;
    std::vector<int64_t> starts;
    for (const auto& doc : docs) {
        starts.push_back(static_cast<int64_t>(expected.size()));
        for (const auto id : tok.bpe().encode(doc))
            expected.push_back(static_cast<int32_t>(id));
        expected.push_back(2); // <eos>
    }
    QCOMPARE(corpus.stream(), expected);
    QCOMPARE(corpus.starts(), starts);
    QCOMPARE(corpus.documents(), docs.size());
    QCOMPARE(corpus.bytes(), int64_t(22 + 1 + 5 + 1 + 7 + 1 + 19 + 1 + 28 + 1)); // "café" is 5 bytes
    // The stream is the text, lossless.
    std::vector<int64_t> firstDoc(corpus.stream().begin(), corpus.stream().begin() + starts[1] - 1);
    QCOMPARE(tok.detokenize(firstDoc), docs[0]);
}

void TestTextCorpus::corpusWindow() {
    const core::BpeTokenizer tok(trainBpe(repeatedBpeText(), 300));
    const core::TextCorpus corpus({"the cat sat on the mat", "the cat", "mississippi"}, tok);
    const auto& s = corpus.stream();
    const auto n = static_cast<int64_t>(s.size());
    const auto bos = tok.vocab().bos(), pad = tok.vocab().pad();
    // Behind one <bos>, running on over the next documents.
    QVERIFY(corpus.starts()[2] - corpus.starts()[1] < 4);
    const auto w = corpus.window(1, 4);
    QCOMPARE(w.size(), std::size_t(5));
    QCOMPARE(w[0], bos);
    for (int64_t i = 0; i < 4; ++i)
        QCOMPARE(w[static_cast<std::size_t>(i + 1)],
                 int64_t(s[static_cast<std::size_t>(corpus.starts()[1] + i)]));
    // <pad> past the end of the stream.
    const auto tail = corpus.window(2, 40);
    QCOMPARE(tail.size(), std::size_t(41));
    const auto left = n - corpus.starts()[2];
    for (int64_t i = 0; i < 40; ++i)
        QCOMPARE(tail[static_cast<std::size_t>(i + 1)],
                 i < left ? int64_t(s[static_cast<std::size_t>(corpus.starts()[2] + i)]) : pad);
    QCOMPARE(tail[static_cast<std::size_t>(left)], tok.vocab().eos()); // the last document's <eos>
    QCOMPARE(corpus.windowAt(n - 1, 2), (std::vector<int64_t>{bos, tok.vocab().eos(), pad}));
    QCOMPARE(corpus.window(0, 0), std::vector<int64_t>{bos});
}

void TestTextCorpus::readDocuments() {
    QTemporaryDir dir;
    const auto path = (dir.path() + QStringLiteral("/text.txt")).toStdString();
    core::writeFileAtomically(path, "first line\r\n\r\n\nsecond – ünïcode\n\nlast without newline");
    const auto docs = core::TextCorpus::readDocuments(path);
    QCOMPARE(docs, (std::vector<std::string>{"first line", "second – ünïcode", "last without newline"}));
}

void TestTextCorpus::readsCompressed() {
    // Only the .xz is there (as the repository and an installed program keep corpora): it is read as the
    // text it holds, made here by the xz tool itself. Two streams one after the other read as one text.
    QTemporaryDir dir;
    const QString path = dir.path() + QStringLiteral("/docs.txt");
    const std::string text = "first – ünïcode\n\nsecond\n";
    core::writeFileAtomically(path.toStdString(), text);
    QProcess xz;
    xz.start(QStringLiteral("xz"), {QStringLiteral("-k"), path});
    if (!xz.waitForFinished() || xz.exitCode() != 0)
        QSKIP_MISSING(
            "skipped: the xz tool (xz-utils, which scripts/setup-deps.sh brings with build-essential) "
            "is not installed");
    QFile::remove(path);
    QCOMPARE(core::TextCorpus::readDocuments(path.toStdString()),
             (std::vector<std::string>{"first – ünïcode", "second"}));
    const auto packed = core::readFile((path + QStringLiteral(".xz")).toStdString());
    core::writeFileAtomically((path + QStringLiteral(".xz")).toStdString(), packed + packed);
    QCOMPARE(core::readCorpusFile(path.toStdString()), text + text);
    // Cut short: refused with the file named, not read as far as it goes.
    core::writeFileAtomically((path + QStringLiteral(".xz")).toStdString(),
                              packed.substr(0, packed.size() / 2));
    try {
        core::readCorpusFile(path.toStdString());
        QFAIL("a truncated .xz was read");
    } catch (const core::IoError& e) {
        QVERIFY2(QString::fromUtf8(e.what()).contains(QStringLiteral("docs.txt.xz")), e.what());
    }
}

void TestTextCorpus::readDocumentsErrors() {
    QTemporaryDir dir;
    const auto path = (dir.path() + QStringLiteral("/train.txt")).toStdString();
    // Missing, but kept compressed beside it: the message says how to unpack it.
    core::writeFileAtomically(path + ".xz", "not really xz");
    try {
        core::TextCorpus::readDocuments(path);
        QFAIL("a missing file was read");
    } catch (const core::IoError& e) {
        QVERIFY2(QString::fromUtf8(e.what()).contains(QString::fromStdString("xz -dk " + path + ".xz")),
                 e.what());
    }
    const auto other = (dir.path() + QStringLiteral("/other.txt")).toStdString();
    try {
        core::TextCorpus::readDocuments(other);
        QFAIL("a missing file was read");
    } catch (const core::IoError& e) {
        QVERIFY2(QString::fromUtf8(e.what()).contains(QString::fromStdString(other)), e.what());
        // The path is a random temporary name that may itself hold the letters "xz": look for the hint.
        QVERIFY2(!QString::fromUtf8(e.what()).contains(QStringLiteral("xz -dk")), e.what());
        QVERIFY2(!QString::fromUtf8(e.what()).contains(QString::fromStdString(other + ".xz")), e.what());
    }
    core::writeFileAtomically(other, "\n\r\n\n");
    QVERIFY_THROWS_EXCEPTION(core::FormatError, core::TextCorpus::readDocuments(other));
}

void TestTextCorpus::perplexityOneWindow() {
    // With max_len covering the whole stream, one window predicts every token from all the text before it:
    // the same as asking the model for the next token after each prefix <bos> stream[0..p).
    const auto bpe = trainBpe(repeatedBpeText(), 280);
    const auto model = randomLanguageModel(bpe, 48);
    const core::TextCorpus corpus({"the cat sat on the mat", "a river", "mississippi"},
                                  model->targetTokenizer());
    const auto& stream = corpus.stream();
    const auto n = static_cast<int64_t>(stream.size());
    QVERIFY2(n > 10 && n <= 48, qPrintable(QString::number(n)));

    double sum = 0.0;
    std::vector<int64_t> prefix{model->targetTokenizer().vocab().bos()};
    for (const auto id : stream) {
        const auto snap = core::analyze(*model, {}, prefix, /*capture=*/false);
        sum -= snap.nextTokenLogProbs.at(static_cast<std::size_t>(id));
        prefix.push_back(id);
    }
    const auto r = core::perplexity(*model, corpus);
    QCOMPARE(r.tokens, n);
    QCOMPARE(r.bytes, corpus.bytes());
    QVERIFY2(std::abs(r.nllPerToken - sum / static_cast<double>(n)) < 1e-4,
             qPrintable(QStringLiteral("%1 vs %2").arg(r.nllPerToken).arg(sum / static_cast<double>(n))));
    QVERIFY(std::abs(r.perplexity - std::exp(r.nllPerToken)) < 1e-9 * r.perplexity);
    const double bits = r.nllPerToken * static_cast<double>(n) / std::log(2.0) / static_cast<double>(r.bytes);
    QVERIFY(std::abs(r.bitsPerByte - bits) < 1e-9);
}

void TestTextCorpus::perplexityShortWindows() {
    // Windows of 8 tokens over documents both shorter and longer than a window: every token is still
    // predicted exactly once, and a document that begins inside a window is read again from its start, so its
    // tokens keep their own document as context.
    const auto bpe = trainBpe(repeatedBpeText(), 280);
    const auto model = randomLanguageModel(bpe, 8);
    const core::TextCorpus corpus({"the cat sat on the mat and the hat sat on the cat", "a river",
                                   "mississippi", "the theory of the thermal therapy is there", "it",
                                   "naïve café"},
                                  model->targetTokenizer());
    const auto n = static_cast<int64_t>(corpus.stream().size());
    QVERIFY(n > 3 * 8);
    const auto r = core::perplexity(*model, corpus);
    QCOMPARE(r.tokens, n);
    QCOMPARE(r.bytes, corpus.bytes());
    QVERIFY(std::isfinite(r.nllPerToken) && std::isfinite(r.perplexity) && std::isfinite(r.bitsPerByte));
    QVERIFY(r.perplexity > 1.0);
    QVERIFY(std::abs(r.perplexity - std::exp(r.nllPerToken)) < 1e-9 * r.perplexity);

    // The same rule said another way: the next window starts at the last document that begins inside the
    // current one (or right after it), else right after it; a token is scored by the first window holding it.
    constexpr int64_t L = 8;
    const auto& starts = corpus.starts();
    std::vector<int64_t> windows{0};
    while (windows.back() + L < n) {
        const auto w = windows.back();
        int64_t next = w + L;
        for (const auto s : starts)
            if (s > w && s <= w + L)
                next = s;
        windows.push_back(next);
    }
    double sum = 0.0;
    for (int64_t p = 0; p < n; ++p) {
        const auto w = *std::find_if(windows.begin(), windows.end(), [&](int64_t x) { return p < x + L; });
        std::vector<int64_t> context{model->targetTokenizer().vocab().bos()};
        context.insert(context.end(), corpus.stream().begin() + w, corpus.stream().begin() + p);
        sum -=
            core::analyze(*model, {}, context, false)
                .nextTokenLogProbs.at(static_cast<std::size_t>(corpus.stream()[static_cast<std::size_t>(p)]));
    }
    QVERIFY2(std::abs(r.nllPerToken - sum / static_cast<double>(n)) < 1e-4,
             qPrintable(QStringLiteral("%1 vs %2").arg(r.nllPerToken).arg(sum / static_cast<double>(n))));
    // A quick check reads windows spread over the text; one is the first window: max_len tokens.
    const auto first = core::perplexity(*model, corpus, 1);
    QCOMPARE(first.tokens, int64_t(8));
    QVERIFY(first.bytes >= 8 && first.bytes < corpus.bytes());
    // Two are the first and the middle one, which scores only the tokens past the window before it:
    // [previous start + L, start + L), start − previous start of them.
    const auto middle = windows.size() / 2;
    const auto two = core::perplexity(*model, corpus, 2);
    QCOMPARE(two.tokens, L + windows[middle] - windows[middle - 1]);
}

void TestTextCorpus::perplexityNeedsDecoderOnly() {
    const auto model =
        randomModel(smallConfig(core::Architecture::EncoderDecoder, core::PositionalEncoding::Sinusoidal));
    const core::TextCorpus corpus({"abc", "de"}, model->targetTokenizer());
    QVERIFY_THROWS_EXCEPTION(core::InputError, core::perplexity(*model, corpus));
}

ATTNSCOPE_GUILESS_MAIN(TestTextCorpus)
#include "test_textcorpus.moc"
