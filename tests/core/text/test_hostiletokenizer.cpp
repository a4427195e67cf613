// Hostile tokenizer.json files and model folders, and the parts of the format they reach: a regex that
// backtracks without end is refused when the file is read (and bounded when a typed text provokes it), ids
// and config.json's vocab_size are held to what the file and the weights can number before a table is built,
// added tokens are found by a trie with the library's semantics (leftmost-longest, single_word, lstrip,
// rstrip, normalized), and a split that only matches empty strings, a template that reads the text twice and
// a flag that is null are read as the tokenizers library reads them, or refused naming the file.

#include "tests/support/SkipReport.h"

#include "core/base/Errors.h"
#include "core/model/Model.h"
#include "core/text/hf/HfAddedTokens.h"
#include "core/text/hf/HfNormalizer.h"
#include "core/text/hf/HfTokenizer.h"
#include "core/text/hf/TokenTrie.h"

#include <QElapsedTimer>
#include <QTemporaryDir>
#include <QtTest>

#include <nlohmann/json.hpp>

#include <cstdint>
#include <fstream>

using nlohmann::json;

namespace {

// A BPE tokenizer.json over the letters a, b, c, space and "!", with `<e>` special; `change` is merged in.
std::string tinyFile(const json& change = json::object()) {
    json j = {{"version", "1.0"},
              {"added_tokens", json::array({{{"id", 0}, {"content", "<e>"}, {"special", true}}})},
              {"normalizer", nullptr},
              {"pre_tokenizer", nullptr},
              {"post_processor", nullptr},
              {"decoder", nullptr},
              {"model",
               {{"type", "BPE"},
                {"vocab", {{"<e>", 0}, {"a", 1}, {"b", 2}, {"c", 3}, {" ", 4}, {"!", 5}}},
                {"merges", json::array()}}}};
    j.merge_patch(change);
    return j.dump();
}

json split(const std::string& pattern, const char* behavior = "Isolated", const char* kind = "Regex") {
    return {{"type", "Split"}, {"pattern", {{kind, pattern}}}, {"behavior", behavior}, {"invert", false}};
}

std::vector<int64_t> idsOf(const core::Tokenizer& t, const std::string& text) {
    std::vector<int64_t> out;
    for (const auto& tok : t.tokenize(text))
        out.push_back(tok.id);
    return out;
}

// The error fromText gives, or "" when the file is read.
QString refusal(const std::string& text, int64_t rows = 0) {
    try {
        core::HfTokenizer::fromText(text, "", "tiny.json", rows);
    } catch (const core::Error& e) {
        return QString::fromUtf8(e.what());
    }
    return {};
}

void writeFile(const std::string& path, const std::string& bytes) {
    std::ofstream(path, std::ios::binary) << bytes;
}

} // namespace

class TestHostileTokenizer : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void backtrackingPatternRefused_data();
    void backtrackingPatternRefused();
    void typedTextBounded();
    void idsHeldToTheFile_data();
    void idsHeldToTheFile();
    void vocabSizeHeldToTheWeights();
    void addedTokensByTrie();
    void addedTokenFlags();
    void emptyMatchesSplit_data();
    void emptyMatchesSplit();
    void templateReadsTheTextTwice();
    void templatesRefused_data();
    void templatesRefused();
    void nullFlagNamesTheFile();
};

void TestHostileTokenizer::backtrackingPatternRefused_data() {
    QTest::addColumn<QString>("text");
    const auto replace = [](const char* pattern) {
        return json{{"type", "Replace"}, {"pattern", {{"Regex", pattern}}}, {"content", " "}};
    };
    QTest::newRow("Split") << QString::fromStdString(tinyFile({{"pre_tokenizer", split(R"((\w+\s?)+$)")}}));
    QTest::newRow("Split in a Sequence") << QString::fromStdString(
        tinyFile({{"pre_tokenizer",
                   {{"type", "Sequence"}, {"pretokenizers", json::array({split(R"((\w+\s?)+$)")})}}}}));
    QTest::newRow("Replace") << QString::fromStdString(tinyFile({{"normalizer", replace(R"((\w+\s?)+$)")}}));
    QTest::newRow("Replace, digits") << QString::fromStdString(
        tinyFile({{"normalizer", replace(R"((\d*)*!x)")}}));
}

void TestHostileTokenizer::backtrackingPatternRefused() {
    // Before: a sentence ending in punctuation took seconds, 40 letters and a "!" 2^40 steps; now the file is
    // refused when it is read, naming it and the pattern as the file writes it.
    QFETCH(QString, text);
    QElapsedTimer clock;
    clock.start();
    const auto why = refusal(text.toStdString());
    qInfo("refused in %lld ms: %s", static_cast<long long>(clock.elapsed()), qPrintable(why));
    QVERIFY2(why.contains(QStringLiteral("tiny.json")), qPrintable(why));
    QVERIFY2(why.contains(QStringLiteral("past its time bound")), qPrintable(why));
    QVERIFY2(why.contains(QStringLiteral(R"(\w+\s?)")) || why.contains(QStringLiteral(R"((\d*)*!x)")),
             qPrintable(why));
}

void TestHostileTokenizer::typedTextBounded() {
    // A pattern the load-time probe does not provoke is still bounded on the text that does: the match
    // stops and the error names the file and the pattern.
    const auto tok =
        core::HfTokenizer::fromText(tinyFile({{"pre_tokenizer", split("(c+c+)+b")}}), "", "tiny.json");
    QCOMPARE(idsOf(*tok, "ccb"), (std::vector<int64_t>{3, 3, 2}));
    try {
        tok->tokenize(std::string(64, 'c'));
        QFAIL("an exponential match ran to its end");
    } catch (const core::FormatError& e) {
        QVERIFY2(QString::fromUtf8(e.what()).contains(QStringLiteral("tiny.json")), e.what());
        QVERIFY2(QString::fromUtf8(e.what()).contains(QStringLiteral("(c+c+)+b")), e.what());
    }
    // A sound pattern's bound grows with the text: GPT-2's split of 200 KB of prose is not cut off.
    const auto gpt2 = core::HfTokenizer::fromText(
        tinyFile({{"pre_tokenizer", {{"type", "ByteLevel"}, {"add_prefix_space", false}}}}), "", "tiny.json");
    std::string prose;
    while (prose.size() < 200000)
        prose += "abc cab  bca! ";
    QCOMPARE(gpt2->pieces(prose).size(), std::size_t(5 * (prose.size() / 14) + 1)); // the last space alone
}

void TestHostileTokenizer::idsHeldToTheFile_data() {
    QTest::addColumn<QString>("text");
    QTest::addColumn<qlonglong>("rows");
    QTest::addColumn<QString>("fragment");
    const auto added = [](int64_t id) {
        return json::array(
            {{{"id", 0}, {"content", "<e>"}, {"special", true}}, {{"id", id}, {"content", "<x>"}}});
    };
    // One added token of id 16,777,215 in a 2 KB file took 74 s and 4.9 GB here before the refusal.
    QTest::newRow("added id 16,777,215")
        << QString::fromStdString(tinyFile({{"added_tokens", added(16777215)}})) << qlonglong(0)
        << "added token 16777215 ('<x>') is past the ids";
    QTest::newRow("added id past the model's rows")
        << QString::fromStdString(tinyFile({{"added_tokens", added(300)}})) << qlonglong(264)
        << "ids end at 263, the model's last row";
    QTest::newRow("model id 16,777,215")
        << QString::fromStdString(tinyFile({{"model", {{"vocab", {{"c", 16777215}}}}}})) << qlonglong(0)
        << "the model's token 'c' has the id 16777215";
    QTest::newRow("added id past 2^32")
        << QString::fromStdString(tinyFile({{"added_tokens", added(int64_t{1} << 33)}})) << qlonglong(0)
        << "below 2^32";
    // What the file and the rows can number is read: the added token as the library would number it, and
    // Qwen2's kind of model, with rows beyond its tokens.
    QTest::newRow("added id 6") << QString::fromStdString(tinyFile({{"added_tokens", added(6)}}))
                                << qlonglong(0) << "";
    QTest::newRow("added id 263 of 264 rows")
        << QString::fromStdString(tinyFile({{"added_tokens", added(263)}})) << qlonglong(264) << "";
}

void TestHostileTokenizer::idsHeldToTheFile() {
    QFETCH(QString, text);
    QFETCH(qlonglong, rows);
    QFETCH(QString, fragment);
    const auto why = refusal(text.toStdString(), rows);
    if (fragment.isEmpty()) {
        QVERIFY2(why.isEmpty(), qPrintable(why));
        return;
    }
    QVERIFY2(why.contains(QStringLiteral("tiny.json")) && why.contains(fragment), qPrintable(why));
}

void TestHostileTokenizer::vocabSizeHeldToTheWeights() {
    // A Llama folder whose config.json says vocab_size 16,777,215 over a 264-row embedding: minutes and
    // gigabytes of "<unusedN>" names before; now refused from the weights' header, before the tokenizer.
    QTemporaryDir tmp;
    const auto dir = tmp.path().toStdString();
    const json config = {
        {"model_type", "llama"},         {"vocab_size", 16777215},      {"hidden_size", 32},
        {"intermediate_size", 48},       {"num_hidden_layers", 2},      {"num_attention_heads", 4},
        {"num_key_value_heads", 2},      {"hidden_act", "silu"},        {"rms_norm_eps", 1e-5},
        {"max_position_embeddings", 64}, {"tie_word_embeddings", false}};
    writeFile(dir + "/config.json", config.dump());
    writeFile(dir + "/tokenizer.json", tinyFile());
    const std::string header = json{{"model.embed_tokens.weight",
                                     {{"dtype", "F32"}, {"shape", {264, 1}}, {"data_offsets", {0, 1056}}}}}
                                   .dump();
    std::string file(8, '\0');
    for (int i = 0; i < 8; ++i)
        file[static_cast<std::size_t>(i)] = static_cast<char>((header.size() >> (8 * i)) & 0xFF);
    writeFile(dir + "/model.safetensors", file + header + std::string(1056, '\0'));
    QElapsedTimer clock;
    clock.start();
    try {
        core::Model::load(dir, core::DeviceChoice::Cpu);
        QFAIL("a vocab_size past the weights' rows was read");
    } catch (const core::ModelError& e) {
        qInfo("refused in %lld ms: %s", static_cast<long long>(clock.elapsed()), e.what());
        const auto why = QString::fromUtf8(e.what());
        QVERIFY2(why.contains(QStringLiteral("model.safetensors")), e.what());
        QVERIFY2(why.contains(QStringLiteral("vocab_size is 16777215")), e.what());
        QVERIFY2(why.contains(QStringLiteral("no tensor has more than 264 rows")), e.what());
    }
}

void TestHostileTokenizer::addedTokensByTrie() {
    // 20,000 added tokens and 100 KB of text: every byte compared with every token took 15 s here (25 s in
    // the report); the trie takes about one step a byte.
    json added = json::array({{{"id", 0}, {"content", "<e>"}, {"special", true}}});
    for (int i = 0; i < 20000; ++i)
        added.push_back({{"id", 6 + i}, {"content", "<t" + std::to_string(i) + ">"}, {"special", false}});
    const auto tok = core::HfTokenizer::fromText(tinyFile({{"added_tokens", added}}), "", "tiny.json");
    const std::string unit = "abc <t17> <t1999>! <t19999>ab ";
    const std::vector<int64_t> unitIds = {1, 2, 3, 4, 6 + 17, 4, 6 + 1999, 5, 4, 6 + 19999, 1, 2, 4};
    std::string text;
    std::vector<int64_t> expected;
    while (text.size() < 100000) {
        text += unit;
        expected.insert(expected.end(), unitIds.begin(), unitIds.end());
    }
    QElapsedTimer clock;
    clock.start();
    const auto ids = idsOf(*tok, text);
    qInfo("20,000 added tokens, %zu bytes: %lld ms", text.size(), static_cast<long long>(clock.elapsed()));
    QCOMPARE(ids, expected);

    core::TokenTrie trie;
    for (int i = 0; i < 20000; ++i)
        trie.add("<t" + std::to_string(i) + ">", i);
    std::size_t steps = 0;
    QCOMPARE(trie.matches(text, &steps).size(), 3 * (text.size() / unit.size()));
    QVERIFY2(steps < 2 * text.size(), qPrintable(QString::number(steps)));
    // Leftmost, then longest: "abc" at 0 rather than "bcd" at 1; then on from the match's end.
    core::TokenTrie keys;
    keys.add("ab", 0);
    keys.add("abc", 1);
    keys.add("bcd", 2);
    keys.add("d", 3);
    std::vector<std::vector<std::size_t>> found;
    for (const auto& m : keys.matches("abcdxbcdab"))
        found.push_back({m.begin, m.end, static_cast<std::size_t>(m.value)});
    QCOMPARE(found, (std::vector<std::vector<std::size_t>>{{0, 3, 1}, {3, 4, 3}, {5, 8, 2}, {8, 10, 0}}));
}

void TestHostileTokenizer::addedTokenFlags() {
    // added_vocabulary.rs's own example: "my" strips the spaces beside it, "ony" is a single word only, and
    // the normalized ones are found in the lowercased text.
    const json list = json::array({
        {{"id", 0}, {"content", "my"}, {"lstrip", true}, {"rstrip", true}, {"normalized", true}},
        {{"id", 1}, {"content", "name"}, {"normalized", true}},
        {{"id", 2}, {"content", "ony"}, {"single_word", true}, {"normalized", true}},
        {{"id", 3}, {"content", "[CLS]"}, {"special", true}},
        {{"id", 4}, {"content", "[SEP]"}, {"special", true}},
    });
    auto added =
        core::HfAddedTokens::fromJson(json::parse(list.dump()), "tiny.json"); // ids unsigned, as read
    const auto lower = core::HfNormalizer::fromJson({{"type", "Lowercase"}}, "tiny.json");
    added.index(lower);
    const std::string text = "[CLS] My name is Anthony [SEP]";
    std::vector<std::string> shown;
    for (const auto& part : added.split(text, false)) {
        const auto piece = text.substr(part.begin, part.end - part.begin);
        if (part.token) {
            shown.push_back(piece + "=" + std::to_string(part.token->id));
            continue;
        }
        const auto normal = lower.apply(piece);
        for (const auto& inner : added.split(normal, true))
            shown.push_back(normal.substr(inner.begin, inner.end - inner.begin) +
                            (inner.token ? "=" + std::to_string(inner.token->id) : std::string()));
    }
    QCOMPARE(shown, (std::vector<std::string>{"[CLS]=3", " my =0", "name=1", " is anthony ", "[SEP]=4"}));
    // single_word by Unicode: punctuation and a dash are no word characters, a combining mark is.
    auto mask = core::HfAddedTokens::fromJson(
        json::parse(R"([{"id": 0, "content": "<mask>", "single_word": true}])"), "tiny.json");
    mask.index(lower);
    std::vector<std::size_t> taken;
    const std::string marks = "<mask>, <mask>- \u25cc\u0330<mask>";
    for (const auto& part : mask.split(marks, true))
        if (part.token)
            taken.push_back(part.begin);
    QCOMPARE(taken, (std::vector<std::size_t>{0, 8}));
}

void TestHostileTokenizer::emptyMatchesSplit_data() {
    QTest::addColumn<QString>("pattern");
    QTest::addColumn<QString>("kind");
    QTest::addColumn<QString>("behavior");
    QTest::addColumn<QString>("text");
    QTest::addColumn<QStringList>("pieces");
    const auto l = [](const char* s) { return QString::fromUtf8(s).split(QLatin1Char('|')); };
    // The library (Oniguruma) splits between every two characters where the pattern matches only empty
    // strings; attnscope kept the whole word.
    QTest::newRow("empty regex") << ""
                                 << "Regex"
                                 << "Isolated"
                                 << "abc" << l("a|b|c");
    QTest::newRow("lookahead") << "(?=b)"
                               << "Regex"
                               << "Isolated"
                               << "abab" << l("a|ba|b");
    QTest::newRow("empty string") << ""
                                  << "String"
                                  << "Removed"
                                  << "ab c" << l("a|b| |c");
    // An empty match where the previous match ended is stepped over, as Oniguruma's iterator does: "baab"
    // with a* is b, aa, b to ICU, b and aab to the library once merged with the next.
    QTest::newRow("a* merged with next") << "a*"
                                         << "Regex"
                                         << "MergedWithNext"
                                         << "baab" << l("b|aab");
    QTest::newRow("a* isolated") << "a*"
                                 << "Regex"
                                 << "Isolated"
                                 << "baab" << l("b|aa|b");
}

void TestHostileTokenizer::emptyMatchesSplit() {
    QFETCH(QString, pattern);
    QFETCH(QString, kind);
    QFETCH(QString, behavior);
    QFETCH(QString, text);
    QFETCH(QStringList, pieces);
    const auto pre = split(pattern.toStdString(), qPrintable(behavior), qPrintable(kind));
    const auto tok = core::HfTokenizer::fromText(tinyFile({{"pre_tokenizer", pre}}), "", "tiny.json");
    QStringList got;
    for (const auto& p : tok->pieces(text.toStdString()))
        got << QString::fromStdString(p);
    QCOMPARE(got, pieces);
}

void TestHostileTokenizer::templateReadsTheTextTwice() {
    // [CLS] $A $A [SEP]: the library reads the text twice, with or without its special tokens.
    const json post = {{"type", "TemplateProcessing"},
                       {"single", json::array({{{"SpecialToken", {{"id", "<e>"}}}},
                                               {{"Sequence", {{"id", "A"}, {"type_id", 0}}}},
                                               {{"Sequence", {{"id", "A"}, {"type_id", 0}}}},
                                               {{"SpecialToken", {{"id", "!"}}}}})},
                       {"special_tokens", json::object()}};
    const auto tok = core::HfTokenizer::fromText(tinyFile({{"post_processor", post}}), "", "tiny.json");
    QCOMPARE(tok->prefixIds(), std::vector<int64_t>{0});
    QCOMPARE(tok->suffixIds(), std::vector<int64_t>{5});
    QCOMPARE(idsOf(*tok, "ab"), (std::vector<int64_t>{1, 2, 1, 2}));
}

void TestHostileTokenizer::templatesRefused_data() {
    QTest::addColumn<QString>("single");
    QTest::addColumn<QString>("fragment");
    const json cls = {{"SpecialToken", {{"id", "<e>"}}}};
    const json a = {{"Sequence", {{"id", "A"}, {"type_id", 0}}}};
    const json b = {{"Sequence", {{"id", "B"}, {"type_id", 1}}}};
    QTest::newRow("special between copies") << QString::fromStdString(json::array({cls, a, cls, a}).dump())
                                            << "special tokens between two copies";
    QTest::newRow("no text") << QString::fromStdString(json::array({cls}).dump()) << "has no $A";
    QTest::newRow("the pair's B") << QString::fromStdString(json::array({cls, b}).dump())
                                  << "holds the sequence $B";
}

void TestHostileTokenizer::templatesRefused() {
    QFETCH(QString, single);
    QFETCH(QString, fragment);
    const json post = {{"type", "TemplateProcessing"}, {"single", json::parse(single.toStdString())}};
    const auto why = refusal(tinyFile({{"post_processor", post}}));
    QVERIFY2(why.contains(QStringLiteral("tiny.json: post_processor TemplateProcessing")) &&
                 why.contains(fragment),
             qPrintable(why));
}

void TestHostileTokenizer::nullFlagNamesTheFile() {
    // "special": null was refused with nlohmann's type error, naming no file; the library refuses it too.
    const auto added = json::array({{{"id", 0}, {"content", "<e>"}, {"special", nullptr}}});
    const auto why = refusal(tinyFile({{"added_tokens", added}}));
    QVERIFY2(why.contains(QStringLiteral("tiny.json: added token 0: 'special' is null")), qPrintable(why));
    const auto text = refusal(
        tinyFile({{"added_tokens", json::array({{{"id", 0}, {"content", "<e>"}, {"normalized", "no"}}})}}));
    QVERIFY2(text.contains(QStringLiteral("tiny.json: added token 0: 'normalized' is \"no\"")),
             qPrintable(text));
}

ATTNSCOPE_GUILESS_MAIN(TestHostileTokenizer)
#include "test_hostiletokenizer.moc"
