// BpeTrainer: byte-level BPE training, checked merge for merge against a recount-everything reference.

#include "tests/support/LanguageModelFixtures.h"

#include "core/base/Errors.h"
#include "core/text/BpeTokenizer.h"
#include "core/text/BpeTrainer.h"
#include "core/text/ByteLevelBpe.h"

#include <QtTest>

#include <algorithm>
#include <map>
#include <set>

namespace {

using Merges = std::vector<std::pair<std::string, std::string>>;

// BPE training the slow, obvious way: count every pair of every piece again before each merge.
Merges naiveMerges(const std::vector<std::string>& docs, int vocabSize, int minCount) {
    std::map<std::string, int64_t> pieceCounts;
    for (const auto& doc : docs)
        for (const auto& piece : core::ByteLevelBpe::pretokenize(doc))
            ++pieceCounts[piece];
    std::vector<std::pair<std::vector<std::string>, int64_t>> words;
    for (const auto& [piece, count] : pieceCounts) {
        std::vector<std::string> symbols;
        for (const char ch : piece)
            symbols.emplace_back(1, ch);
        words.emplace_back(std::move(symbols), count);
    }
    Merges merges;
    std::set<std::string> made;
    while (260 + static_cast<int>(made.size()) < vocabSize) {
        std::map<std::pair<std::string, std::string>, int64_t> counts;
        for (const auto& [s, n] : words)
            for (std::size_t i = 0; i + 1 < s.size(); ++i)
                counts[{s[i], s[i + 1]}] += n;
        // The map is in byte order, so among equal counts the first pair seen wins.
        const std::pair<std::string, std::string>* best = nullptr;
        int64_t bestCount = 0;
        for (const auto& [pair, n] : counts)
            if (n > bestCount)
                best = &pair, bestCount = n;
        if (!best || bestCount < minCount)
            break;
        const auto [a, b] = *best;
        merges.emplace_back(a, b);
        made.insert(a + b);
        for (auto& [s, n] : words) {
            std::vector<std::string> next;
            for (std::size_t i = 0; i < s.size();) {
                if (i + 1 < s.size() && s[i] == a && s[i + 1] == b) {
                    next.push_back(a + b);
                    i += 2;
                } else {
                    next.push_back(s[i++]);
                }
            }
            s = std::move(next);
        }
    }
    return merges;
}

} // namespace

class TestBpeTrainer : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void bpeFirstMergeIsMostFrequentPair();
    void bpeMatchesNaiveTrainer_data();
    void bpeMatchesNaiveTrainer();
    void bpeVocabularyLayout();
    void bpeIsDeterministic();
    void bpeRoundTrip_data();
    void bpeRoundTrip();
    void bpeCompresses();
    void bpeFilesRoundTrip();
    void bpeSameTokenFromTwoMerges();
    void bpeTooSmallVocabulary_data();
    void bpeTooSmallVocabulary();
    void bpeStopsBelowMinCount();
};

void TestBpeTrainer::bpeFirstMergeIsMostFrequentPair() {
    // Across the raw text "s " is the commonest pair (8), but it spans two pieces (a word and the next one's
    // leading space); inside the pieces "an" (7) is.
    const std::vector<std::string> docs = {"bus has yes his its gas was ups and can fan man", "pan tan ran"};
    std::map<std::string, int> inside, raw;
    for (const auto& doc : docs) {
        for (std::size_t i = 0; i + 1 < doc.size(); ++i)
            ++raw[doc.substr(i, 2)];
        // Letters and single spaces only: the pieces are the words, each after the first with its space.
        std::size_t from = 0;
        while (from < doc.size()) {
            const auto space = doc.find(' ', from + 1);
            const auto piece =
                doc.substr(from, space == std::string::npos ? std::string::npos : space - from);
            for (std::size_t i = 0; i + 1 < piece.size(); ++i)
                ++inside[piece.substr(i, 2)];
            from = space == std::string::npos ? doc.size() : space;
        }
    }
    const auto most = [](const std::map<std::string, int>& m) {
        return std::max_element(m.begin(), m.end(), [](auto& x, auto& y) { return x.second < y.second; })
            ->first;
    };
    QCOMPARE(most(raw), std::string("s "));
    QCOMPARE(most(inside), std::string("an"));
    QCOMPARE(inside.at("an"), 7);
    for (const auto& [pair, n] : inside)
        QVERIFY2(pair == "an" || n < 7, pair.c_str()); // the most frequent pair is unique

    const auto bpe = trainBpe(docs, 261);
    QCOMPARE(bpe.merges().size(), std::size_t(1));
    QCOMPARE(bpe.merges()[0].first, std::string("a"));
    QCOMPARE(bpe.merges()[0].second, std::string("n"));
    QCOMPARE(bpe.token(260), std::string("an"));
}

void TestBpeTrainer::bpeMatchesNaiveTrainer_data() {
    QTest::addColumn<bool>("repeated");
    QTest::addColumn<int>("vocabSize");
    QTest::addColumn<int>("minCount");
    QTest::newRow("repeated text, 320 tokens") << true << 320 << 2;
    QTest::newRow("runs out of frequent pairs") << false << 5000 << 2;
    QTest::newRow("min_count 3") << false << 5000 << 3;
    QTest::newRow("min_count 1, until every piece is one token") << false << 5000 << 1;
}

void TestBpeTrainer::bpeMatchesNaiveTrainer() {
    // The trainer updates its pair counts incrementally; a reference that recounts everything before each
    // merge must agree merge for merge (ties included).
    QFETCH(bool, repeated);
    QFETCH(int, vocabSize);
    QFETCH(int, minCount);
    const auto docs = repeated ? repeatedBpeText() : bpeText();
    const auto expected = naiveMerges(docs, vocabSize, minCount);
    const auto bpe = trainBpe(docs, vocabSize, minCount);
    QVERIFY(!expected.empty());
    QCOMPARE(bpe.merges().size(), expected.size());
    for (std::size_t i = 0; i < expected.size(); ++i)
        QVERIFY2(bpe.merges()[i] == expected[i],
                 qPrintable(QStringLiteral("merge %1: '%2' '%3', expected '%4' '%5'")
                                .arg(i)
                                .arg(QString::fromStdString(bpe.merges()[i].first),
                                     QString::fromStdString(bpe.merges()[i].second),
                                     QString::fromStdString(expected[i].first),
                                     QString::fromStdString(expected[i].second))));
}

void TestBpeTrainer::bpeVocabularyLayout() {
    const auto bpe = trainBpe(repeatedBpeText(), 300);
    QCOMPARE(bpe.size(), int64_t(300));
    QCOMPARE(bpe.token(0), std::string("<pad>"));
    QCOMPARE(bpe.token(1), std::string("<bos>"));
    QCOMPARE(bpe.token(2), std::string("<eos>"));
    QCOMPARE(bpe.token(3), std::string("<unk>"));
    for (int b = 0; b < 256; ++b)
        QCOMPARE(bpe.token(4 + b), std::string(1, static_cast<char>(b)));
    // Then one token per new merge text, in the order learned, each made by its merge.
    std::vector<std::string> made;
    for (const auto& [a, b] : bpe.merges())
        if (std::find(made.begin(), made.end(), a + b) == made.end())
            made.push_back(a + b);
    QCOMPARE(made.size(), std::size_t(300 - 260));
    for (std::size_t i = 0; i < made.size(); ++i)
        QCOMPARE(bpe.token(static_cast<int64_t>(260 + i)), made[i]);
    // The tokenizer built on it takes the four specials for their parts.
    const core::BpeTokenizer tok(bpe);
    QCOMPARE(tok.vocab().pad(), int64_t(0));
    QCOMPARE(tok.vocab().bos(), int64_t(1));
    QCOMPARE(tok.vocab().eos(), int64_t(2));
    QCOMPARE(tok.vocab().unk(), int64_t(3));
    QCOMPARE(tok.vocab().size(), int64_t(300));
}

void TestBpeTrainer::bpeIsDeterministic() {
    const auto docs = repeatedBpeText();
    const auto a = trainBpe(docs, 320), b = trainBpe(docs, 320);
    QVERIFY(a.merges() == b.merges());
    QVERIFY(a.tokens() == b.tokens());
    // A function of the text alone: the order of the documents does not matter.
    auto shuffled = docs;
    std::reverse(shuffled.begin(), shuffled.end());
    std::rotate(shuffled.begin(), shuffled.begin() + 4, shuffled.end());
    const auto c = trainBpe(shuffled, 320);
    QVERIFY(a.merges() == c.merges());
    QVERIFY(a.tokens() == c.tokens());
}

void TestBpeTrainer::bpeRoundTrip_data() {
    QTest::addColumn<QString>("text");
    for (std::size_t i = 0; i < bpeText().size(); ++i)
        QTest::newRow(qPrintable(QStringLiteral("training text %1").arg(i)))
            << QString::fromStdString(bpeText()[i]);
    QTest::newRow("unseen words") << "quantum zebras juggle 98765 xylophones!";
    QTest::newRow("whitespace runs") << "  two  spaces\tand a tab\n\nnewlines   ";
    QTest::newRow("other scripts") << "Ελληνικά и русский, emoji 🙂 and 한국어";
    QTest::newRow("repeated letters") << "aaaaaaaaaaa mississippimississippi";
}

void TestBpeTrainer::bpeRoundTrip() {
    QFETCH(QString, text);
    static const auto bpe = trainBpe(repeatedBpeText(), 320);
    const auto s = text.toStdString();
    const auto ids = bpe.encode(s);
    for (const auto id : ids)
        QVERIFY2(id >= 4 && id < bpe.size(), qPrintable(QString::number(id))); // never unknown, never special
    QCOMPARE(bpe.decode(ids), s);
}

void TestBpeTrainer::bpeCompresses() {
    const auto bpe = trainBpe(repeatedBpeText(), 320);
    std::size_t bytes = 0, tokens = 0;
    for (const auto& doc : bpeText()) {
        bytes += doc.size();
        tokens += bpe.encode(doc).size();
    }
    qInfo("%zu bytes of training text in %zu tokens", bytes, tokens);
    QVERIFY(tokens < bytes * 3 / 4);
    // Encoding replays the merges: a word seen in training is one token.
    QCOMPARE(bpe.encode(" the").size(), std::size_t(1));
}

void TestBpeTrainer::bpeFilesRoundTrip() {
    const auto bpe = trainBpe(repeatedBpeText(), 320);
    const auto back = core::ByteLevelBpe::fromText(bpe.vocabJson(), bpe.mergesText());
    QVERIFY(back.tokens() == bpe.tokens());
    QVERIFY(back.merges() == bpe.merges());
    for (const auto& doc : bpeText())
        QVERIFY(back.encode(doc) == bpe.encode(doc));
    QVERIFY(back.encode("naïve 東京 🙂") == bpe.encode("naïve 東京 🙂"));
}

void TestBpeTrainer::bpeSameTokenFromTwoMerges() {
    // "a"+"bc" and "ab"+"c" both make "abc": two merges, one token. (The trainer cannot learn this from text,
    // since a token's history depends only on its own bytes, but merges.txt files may hold it.)
    std::vector<std::string> tokens = {"<pad>", "<bos>", "<eos>", "<unk>"};
    for (int b = 0; b < 256; ++b)
        tokens.emplace_back(1, static_cast<char>(b));
    tokens.insert(tokens.end(), {"ab", "bc", "abc"});
    const auto bpe =
        core::ByteLevelBpe::fromTokens(tokens, {{"a", "b"}, {"b", "c"}, {"a", "bc"}, {"ab", "c"}});
    const auto json = bpe.vocabJson();
    QCOMPARE(QString::fromStdString(json).count(QStringLiteral("\"abc\"")), 1);
    const auto back = core::ByteLevelBpe::fromText(json, bpe.mergesText());
    QCOMPARE(back.size(), int64_t(263));
    QCOMPARE(back.merges().size(), std::size_t(4));
    QVERIFY(back.tokens() == bpe.tokens());
    QCOMPARE(back.encode("abc"), std::vector<int64_t>{262});
    QCOMPARE(back.encode("xabc"), (std::vector<int64_t>{4 + 'x', 262}));
    QCOMPARE(back.decode(back.encode("cabcab bc")), std::string("cabcab bc"));
    const core::BpeTokenizer tok(back);
    QCOMPARE(tok.vocab().size(), int64_t(263));
}

void TestBpeTrainer::bpeTooSmallVocabulary_data() {
    QTest::addColumn<int>("vocabSize");
    QTest::newRow("259") << 259;
    QTest::newRow("256") << 256;
    QTest::newRow("0") << 0;
    QTest::newRow("negative") << -5;
}

void TestBpeTrainer::bpeTooSmallVocabulary() {
    QFETCH(int, vocabSize);
    try {
        trainBpe(bpeText(), vocabSize);
        QFAIL("accepted");
    } catch (const core::InputError& e) {
        QVERIFY2(QString::fromUtf8(e.what()).contains(QStringLiteral("260")), e.what());
        QVERIFY2(QString::fromUtf8(e.what()).contains(QString::number(vocabSize)), e.what());
    }
    QCOMPARE(trainBpe(bpeText(), 260).size(), int64_t(260)); // the smallest allowed: bytes only
}

void TestBpeTrainer::bpeStopsBelowMinCount() {
    // Asked for far more tokens than the text has frequent pairs, training stops early: the vocabulary is
    // smaller than asked, and a stricter min_count stops sooner on the same path.
    const auto two = trainBpe(bpeText(), 5000, 2);
    const auto three = trainBpe(bpeText(), 5000, 3);
    const auto one = trainBpe(bpeText(), 5000, 1);
    QVERIFY(two.size() < 5000);
    QVERIFY(three.size() < two.size());
    QVERIFY(two.size() < one.size());
    QCOMPARE(two.size(), int64_t(260 + two.merges().size()));
    QVERIFY(std::equal(three.merges().begin(), three.merges().end(), two.merges().begin()));
    QVERIFY(std::equal(two.merges().begin(), two.merges().end(), one.merges().begin()));
    // With min_count 1 every piece ends as a single token.
    for (const auto& doc : bpeText())
        QCOMPARE(one.encode(doc).size(), core::ByteLevelBpe::pretokenize(doc).size());
    // No pair is that frequent: bytes only.
    const auto none = trainBpe(bpeText(), 5000, 1000);
    QCOMPARE(none.size(), int64_t(260));
    QVERIFY(none.merges().empty());
}

QTEST_GUILESS_MAIN(TestBpeTrainer)
#include "test_bpetrainer.moc"
