// Hugging Face tokenizer.json against the reference implementations of the format on real models' files
// (GPT-2's, Llama 3's, Qwen2.5's and Mistral's, from @lenml's packages; all installed by
// scripts/setup-deps.sh
// --tests): npm @huggingface/tokenizers (JavaScript) and npm tokenizers (Hugging Face's own Rust library).
// The same ids on strings of many scripts, emoji, whitespace runs, code and special tokens typed in the text,
// and on GPT-2's 2,210 test strings, and the same decoded text; the same for BERT-style WordPiece files,
// cased and uncased, made from those strings (tests/reference/make_wordpiece_tokenizer.py). Where the two
// references differ (the JavaScript one reads \s as JavaScript does: U+FEFF is a space to it and U+0085 is
// not), the Rust library decides. Then what needs neither node nor the files: the format's parts on small
// files written here, and malformed files refused by name.

#include "tests/support/ReferencePython.h"
#include "tests/support/SkipReport.h"

#include "core/base/Errors.h"
#include "core/base/Files.h"
#include "core/text/UnicodeText.h"
#include "core/text/hf/HfTokenizer.h"

#include <QElapsedTimer>
#include <QFileInfo>
#include <QProcess>
#include <QStandardPaths>
#include <QTemporaryDir>
#include <QtTest>

#include <nlohmann/json.hpp>

using nlohmann::json;

namespace {

const QString kFiles = QStringLiteral(ATTNSCOPE_SOURCE_DIR "/.deps/npm/tokenizer-files");
const QString kModules = QStringLiteral(ATTNSCOPE_SOURCE_DIR "/.deps/npm/node_modules");
const QString kScript = QStringLiteral(ATTNSCOPE_SOURCE_DIR "/tests/reference/hf_tokenize.mjs");
const std::string kStrings = ATTNSCOPE_SOURCE_DIR "/tests/data/tokenizer_json_strings.json";
const std::string kGpt2Strings = ATTNSCOPE_SOURCE_DIR "/tests/data/gpt2_strings.json";
const QString kHint = QStringLiteral("; scripts/setup-deps.sh --tests installs it");

std::string shown(const std::string& s) {
    return json(s).dump(-1, ' ', true);
}

std::string ids(const std::vector<int64_t>& v) {
    return json(v).dump();
}

// A BPE tokenizer.json over the given parts, for the tests of single features.
std::string tinyFile(const json& normalizer, const json& preTokenizer, const json& decoder, const json& vocab,
                     const json& merges, const json& added = json::array(),
                     const json& model = json::object()) {
    json j = {{"version", "1.0"},          {"added_tokens", added},
              {"normalizer", normalizer},  {"pre_tokenizer", preTokenizer},
              {"post_processor", nullptr}, {"decoder", decoder}};
    json m = {{"type", "BPE"}, {"vocab", vocab}, {"merges", merges}};
    m.update(model);
    j["model"] = m;
    return j.dump();
}

// Runs hf_tokenize.mjs: {"ids", "decoded"} of every string.
json reference(const QString& node, const QString& dir, const std::string& strings, bool official) {
    QStringList args{kScript, dir, QString::fromStdString(strings)};
    if (official)
        args << QStringLiteral("--official");
    args << kModules;
    QProcess p;
    p.start(node, args);
    if (!p.waitForFinished(300000) || p.exitStatus() != QProcess::NormalExit || p.exitCode() != 0)
        throw std::runtime_error("hf_tokenize.mjs failed: " + p.readAllStandardError().toStdString());
    return json::parse(p.readAllStandardOutput().toStdString());
}

std::vector<int64_t> idsOf(const core::Tokenizer& t, const std::string& text) {
    std::vector<int64_t> out;
    for (const auto& tok : t.tokenize(text))
        out.push_back(tok.id);
    return out;
}

} // namespace

class TestTokenizerJson : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void agreesWithTheReference_data();
    void agreesWithTheReference();
    void specialsOfRealFiles();
    void metaspaceAndByteFallback();
    void splitBehaviors();
    void addedTokens();
    void paddedToTheModelsRows();
    void malformed_data();
    void malformed();
};

void TestTokenizerJson::agreesWithTheReference_data() {
    QTest::addColumn<QString>("model");
    for (const char* m : {"gpt2", "llama3", "qwen2_5", "llama2"})
        QTest::newRow(m) << QString::fromLatin1(m);
    // WordPiece: BERT-style files made from the strings (tests/reference/make_wordpiece_tokenizer.py).
    QTest::newRow("wordpiece uncased") << QStringLiteral("wordpiece");
    QTest::newRow("wordpiece cased") << QStringLiteral("wordpiece-cased");
    // Unigram: SentencePiece-style files made from the strings (tests/reference/make_unigram_tokenizer.py).
    QTest::newRow("unigram") << QStringLiteral("unigram");
    QTest::newRow("unigram, byte fallback") << QStringLiteral("unigram-bytes");
}

void TestTokenizerJson::agreesWithTheReference() {
    QFETCH(QString, model);
    const auto node = QStandardPaths::findExecutable(QStringLiteral("node"));
    if (node.isEmpty())
        QSKIP_MISSING(qPrintable(QStringLiteral("node is not installed (no `node` on PATH)") + kHint));
    QTemporaryDir made;
    auto dir = kFiles + QLatin1Char('/') + model;
    if (model.startsWith(QStringLiteral("wordpiece")) || model.startsWith(QStringLiteral("unigram"))) {
        dir = made.filePath(model);
        const bool unigram = model.startsWith(QStringLiteral("unigram"));
        QStringList args{unigram ? QStringLiteral("make_unigram_tokenizer.py")
                                 : QStringLiteral("make_wordpiece_tokenizer.py"),
                         dir};
        if (model.endsWith(QStringLiteral("-cased")))
            args << QStringLiteral("--cased");
        if (model.endsWith(QStringLiteral("-bytes")))
            args << QStringLiteral("--byte-fallback");
        args << QString::fromStdString(kStrings) << QString::fromStdString(kGpt2Strings);
        QString why;
        if (!runReferenceScript(args, &why)) {
            if (why.startsWith(QStringLiteral("skipped")))
                QSKIP_MISSING(qPrintable(why));
            QFAIL(qPrintable(why));
        }
    }
    if (!QFileInfo::exists(dir + QStringLiteral("/tokenizer.json")) ||
        !QFileInfo::exists(kModules + QStringLiteral("/@huggingface/tokenizers/package.json")) ||
        !QFileInfo::exists(kModules + QStringLiteral("/tokenizers/package.json")))
        QSKIP_MISSING(qPrintable(QStringLiteral("the reference tokenizers or ") + dir +
                                 QStringLiteral("/tokenizer.json are not installed") + kHint));

    // Our strings, then GPT-2's test strings, in one file for one run of node per reference.
    auto strings = json::parse(core::readFile(kStrings)).get<std::vector<std::string>>();
    for (auto& s : json::parse(core::readFile(kGpt2Strings)).get<std::vector<std::string>>())
        strings.push_back(std::move(s));
    QTemporaryDir tmp;
    const auto input = tmp.filePath(QStringLiteral("strings.json")).toStdString();
    core::writeFileAtomically(input, json(strings).dump());
    json js, rust;
    try {
        js = reference(node, dir, input, false);
        rust = reference(node, dir, input, true);
    } catch (const std::exception& e) {
        QFAIL(e.what());
    }
    QCOMPARE(js["ids"].size(), strings.size());
    QCOMPARE(rust["ids"].size(), strings.size());

    QElapsedTimer timer;
    timer.start();
    const auto tok = core::HfTokenizer::fromFile((dir + QStringLiteral("/tokenizer.json")).toStdString());
    const double loadMs = static_cast<double>(timer.nsecsElapsed()) / 1e6;
    timer.restart();
    std::vector<std::vector<int64_t>> ours;
    for (const auto& s : strings)
        ours.push_back(idsOf(*tok, s));
    const double encodeMs = static_cast<double>(timer.nsecsElapsed()) / 1e6;
    int withJs = 0, withRust = 0, decodedWithRust = 0, jsDiffers = 0, shownCount = 0, halvesAgree = 0,
        specialsAgree = 0;
    long long tokens = 0;
    for (std::size_t i = 0; i < strings.size(); ++i) {
        const auto jsIds = js["ids"][i].get<std::vector<int64_t>>();
        const auto rustIds = rust["ids"][i].get<std::vector<int64_t>>();
        tokens += static_cast<long long>(rustIds.size());
        const auto decoded = tok->detokenize(ours[i]);
        const auto rustText = rust["decoded"][i].get<std::string>();
        withJs += ours[i] == jsIds;
        withRust += ours[i] == rustIds;
        jsDiffers += jsIds != rustIds;
        decodedWithRust += decoded == rustText;
        // A cut inside a character or a word decodes alike; the prompt prefix and suffix are the library's.
        const std::vector<int64_t> half(ours[i].begin(), ours[i].begin() + long(ours[i].size() / 2));
        halvesAgree += tok->detokenize(half) == rust["halves"][i].get<std::string>();
        auto framed = tok->prefixIds();
        framed.insert(framed.end(), ours[i].begin(), ours[i].end());
        framed.insert(framed.end(), tok->suffixIds().begin(), tok->suffixIds().end());
        specialsAgree += framed == rust["withSpecials"][i].get<std::vector<int64_t>>();
        // Every difference from the JavaScript reference must be one where it also differs from the library.
        QVERIFY2(ours[i] == jsIds || jsIds != rustIds,
                 qPrintable(QString::fromStdString("string " + std::to_string(i) + " " + shown(strings[i]))));
        if ((ours[i] != rustIds || decoded != rustText) && shownCount++ < 6)
            qWarning("string %zu %s\n  ours:    %s %s\n  library: %s %s", i, shown(strings[i]).c_str(),
                     ids(ours[i]).c_str(), shown(decoded).c_str(), ids(rustIds).c_str(),
                     shown(rustText).c_str());
    }
    const int n = static_cast<int>(strings.size());
    qInfo("%s: ids agree with the Rust library on %d/%d strings (%lld tokens) and with "
          "@huggingface/tokenizers on "
          "%d (it differs from the library on %d); decoded text agrees on %d; read in %.0f ms, encoded in "
          "%.0f ms",
          qPrintable(model), withRust, n, tokens, withJs, jsDiffers, decodedWithRust, loadMs, encodeMs);
    qInfo("%s: halves decoded alike %d/%d; with the special tokens added, %d/%d", qPrintable(model),
          halvesAgree, n, specialsAgree, n);
    QCOMPARE(withRust, n);
    QCOMPARE(decodedWithRust, n);
    QCOMPARE(halvesAgree, n);
    QCOMPARE(specialsAgree, n);
    QCOMPARE(withJs + jsDiffers, n);
    QVERIFY(n > 2200);
}

void TestTokenizerJson::specialsOfRealFiles() {
    const auto dir = kFiles.toStdString();
    if (!QFileInfo::exists(kFiles + QStringLiteral("/llama3/tokenizer.json")))
        QSKIP_MISSING(qPrintable(kFiles + QStringLiteral(" is not installed") + kHint));
    const auto llama3 = core::HfTokenizer::fromFile(dir + "/llama3/tokenizer.json");
    QCOMPARE(llama3->vocab().size(), int64_t(128256));
    QCOMPARE(llama3->vocab().token(llama3->vocab().bos()), std::string("<|begin_of_text|>"));
    QCOMPARE(llama3->vocab().token(llama3->vocab().eos()), std::string("<|end_of_text|>"));
    // A typed special token is that token; the window shows a token's text as its bytes (" world").
    const auto t = llama3->tokenize("<|begin_of_text|>Hello world");
    QCOMPARE(t.size(), std::size_t(3));
    QCOMPARE(t[0].id, int64_t(128000));
    QCOMPARE(t[2].text, std::string(" world"));
    QCOMPARE(llama3->detokenize({128000, 9906, 1917}), std::string("Hello world"));

    const auto mistral = core::HfTokenizer::fromFile(dir + "/llama2/tokenizer.json");
    QCOMPARE(mistral->vocab().token(mistral->vocab().bos()), std::string("<s>"));
    QCOMPARE(mistral->vocab().token(mistral->vocab().unk()), std::string("<unk>"));
    QCOMPARE(mistral->prefixIds(), std::vector<int64_t>{1}); // the template puts <s> before the text
    QVERIFY(mistral->suffixIds().empty());
    QCOMPARE(mistral->promptPrefix(), std::vector<int64_t>{1});
    // Qwen2.5's post-processor puts nothing before a sequence, so neither does a prompt.
    const auto qwen = core::HfTokenizer::fromFile(dir + "/qwen2_5/tokenizer.json");
    QVERIFY(qwen->promptPrefix().empty());
    // Its tokenizer_config.json (Qwen2.5-Instruct's) names the special tokens.
    QCOMPARE(qwen->vocab().token(qwen->vocab().eos()), std::string("<|im_end|>"));
    QCOMPARE(qwen->vocab().token(qwen->vocab().pad()), std::string("<|endoftext|>"));
}

void TestTokenizerJson::metaspaceAndByteFallback() {
    // SentencePiece's way in tokenizer.json: "▁" for spaces, prepended to the first word only, and characters
    // outside the vocabulary as their UTF-8 bytes.
    const json vocab = {{"<unk>", 0},   {"<s>", 1}, {"</s>", 2},     {"\u2581", 3}, {"a", 4},      {"b", 5},
                        {"\u2581a", 6}, {"ab", 7},  {"\u2581ab", 8}, {"<0xC3>", 9}, {"<0xA9>", 10}};
    const json merges = json::array({"\u2581 a", "\u2581a b", "a b"});
    const json pre = {
        {"type", "Metaspace"}, {"replacement", "\u2581"}, {"prepend_scheme", "first"}, {"split", true}};
    const json dec = {{"type", "Metaspace"}, {"replacement", "\u2581"}, {"prepend_scheme", "first"}};
    const auto tok = core::HfTokenizer::fromText(
        tinyFile(nullptr, pre, dec, vocab, merges,
                 json::array({{{"id", 1}, {"content", "<s>"}, {"special", true}}}),
                 {{"byte_fallback", true}}),
        "", "tiny.json");
    QCOMPARE(idsOf(*tok, "ab ab"), (std::vector<int64_t>{8, 8}));
    QCOMPARE(idsOf(*tok, "b\u00e9"), (std::vector<int64_t>{3, 5, 9, 10})); // "▁", "b", é as <0xC3> <0xA9>
    // After an added token the text does not start the input: no "▁" is prepended.
    QCOMPARE(idsOf(*tok, "<s>ab"), (std::vector<int64_t>{1, 7}));
    QCOMPARE(tok->detokenize({8, 8}), std::string("ab ab"));
    QCOMPARE(tok->vocab().token(8), std::string(" ab")); // shown as its text
}

void TestTokenizerJson::splitBehaviors() {
    const json vocab = {{"<e>", 0}, {"a", 1}, {"-", 2}, {"-a", 3}, {"a-", 4}, {"--", 5}};
    const json merges = json::array({"- a", "a -", "- -"});
    const auto split = [&](const char* behavior, bool invert) {
        const json pre = {
            {"type", "Split"}, {"pattern", {{"String", "-"}}}, {"behavior", behavior}, {"invert", invert}};
        const auto tok = core::HfTokenizer::fromText(
            tinyFile(nullptr, pre, nullptr, vocab, merges,
                     json::array({{{"id", 0}, {"content", "<e>"}, {"special", true}}})),
            "", "tiny.json");
        return idsOf(*tok, "a-a--a");
    };
    QCOMPARE(split("Removed", false), (std::vector<int64_t>{1, 1, 1}));
    QCOMPARE(split("Isolated", false), (std::vector<int64_t>{1, 2, 1, 2, 2, 1}));
    QCOMPARE(split("MergedWithPrevious", false), (std::vector<int64_t>{4, 4, 2, 1}));
    QCOMPARE(split("MergedWithNext", false), (std::vector<int64_t>{1, 3, 2, 3}));
    QCOMPARE(split("Contiguous", false), (std::vector<int64_t>{1, 2, 1, 5, 1}));
}

void TestTokenizerJson::addedTokens() {
    const json vocab = {{"<e>", 0}, {"x", 1}, {" ", 2}};
    const json added = json::array(
        {{{"id", 0}, {"content", "<e>"}, {"special", true}},
         {{"id", 3}, {"content", "<tool>"}, {"special", false}, {"lstrip", true}, {"rstrip", true}}});
    const auto tok = core::HfTokenizer::fromText(
        tinyFile(nullptr, nullptr, nullptr, vocab, json::array(), added), "", "tiny.json");
    QCOMPARE(tok->vocab().size(), int64_t(4));
    QCOMPARE(idsOf(*tok, "x <tool> x"), (std::vector<int64_t>{1, 3, 1})); // the spaces go with <tool>
    QCOMPARE(idsOf(*tok, "x<e> x"), (std::vector<int64_t>{1, 0, 2, 1}));
    // Without a decoder the library joins tokens with spaces; the special one is left out.
    QCOMPARE(tok->detokenize({1, 0, 3, 1}), std::string("x <tool> x"));
    // lstrip and rstrip take whole spaces: "х" (D1 85) ends in the byte of U+0085, and is no space.
    QCOMPARE(core::skipSpaceBackward("\u0445 ", 0, 3), std::size_t(2));
    QCOMPARE(core::skipSpaceBackward("\u0445", 0, 2), std::size_t(2));
    QCOMPARE(core::skipSpaceBackward("a\u3000\u00a0", 0, 6), std::size_t(1));
    QCOMPARE(core::skipSpaceForward("\u00a0 \u0445", 0), std::size_t(3));
}

void TestTokenizerJson::paddedToTheModelsRows() {
    // Models often have more embedding rows than their tokenizer has tokens (Qwen2: 151,936 for 151,665).
    const json vocab = {{"<e>", 0}, {"x", 1}};
    const auto tok = core::HfTokenizer::fromText(
        tinyFile(nullptr, nullptr, nullptr, vocab, json::array(),
                 json::array({{{"id", 0}, {"content", "<e>"}, {"special", true}}})),
        "", "tiny.json", 6);
    QCOMPARE(tok->vocab().size(), int64_t(6));
    QCOMPARE(tok->vocab().token(5), std::string("<unused5>"));
}

void TestTokenizerJson::malformed_data() {
    QTest::addColumn<QString>("text");
    QTest::addColumn<QString>("fragment");
    const auto base = [](const json& change) {
        json j = json::parse(tinyFile(nullptr, nullptr, nullptr, {{"<e>", 0}, {"a", 1}, {"b", 2}, {"ab", 3}},
                                      json::array({"a b"}),
                                      json::array({{{"id", 0}, {"content", "<e>"}, {"special", true}}})));
        j.merge_patch(change);
        return QString::fromStdString(j.dump());
    };
    QTest::newRow("not JSON") << QStringLiteral("{\"model\": ") << QStringLiteral("tiny.json");
    QTest::newRow("WordLevel") << base({{"model", {{"type", "WordLevel"}}}})
                               << QStringLiteral("a WordLevel model; attnscope reads tokenizer.json files of "
                                                 "BPE, WordPiece and Unigram models");
    QTest::newRow("Unigram's vocabulary")
        << base({{"model", {{"type", "Unigram"}}}})
        << QStringLiteral("a Unigram 'vocab' must be a list of [piece, score]");
    QTest::newRow("merge outside the vocabulary")
        << base({{"model", {{"merges", json::array({"a c"})}}}})
        << QStringLiteral("merge 0 (a c) joins tokens that are not in the vocabulary");
    QTest::newRow("merge spelling") << base({{"model", {{"merges", json::array({"abc"})}}}})
                                    << QStringLiteral(
                                           "merge 0 \"abc\" is not two tokens separated by one space");
    QTest::newRow("dropout") << base({{"model", {{"dropout", 0.1}}}})
                             << QStringLiteral("'dropout' 0.1 makes the split random");
    QTest::newRow("unknown normalizer") << base({{"normalizer", {{"type", "Precompiled"}}}})
                                        << QStringLiteral("normalizer Precompiled is not supported");
    QTest::newRow("unknown pre-tokenizer") << base({{"pre_tokenizer", {{"type", "FixedLength"}}}})
                                           << QStringLiteral("pre_tokenizer FixedLength is not supported");
    QTest::newRow("bad regex") << base({{"pre_tokenizer",
                                         {{"type", "Split"}, {"pattern", {{"Regex", "(["}}}}}})
                               << QStringLiteral("does not compile");
    QTest::newRow("bad id") << base({{"model", {{"vocab", {{"a", -4}}}}}}) << QStringLiteral("the id of 'a'");
    QTest::newRow("no special") << base({{"added_tokens", json::array()}})
                                << QStringLiteral("no special token to begin and end a sequence with");
}

void TestTokenizerJson::malformed() {
    QFETCH(QString, text);
    QFETCH(QString, fragment);
    try {
        core::HfTokenizer::fromText(text.toStdString(), "", "tiny.json");
        QFAIL("a malformed tokenizer.json was accepted");
    } catch (const core::Error& e) {
        QVERIFY2(QString::fromUtf8(e.what()).contains(fragment), e.what());
        QVERIFY2(QString::fromUtf8(e.what()).contains(QStringLiteral("tiny.json")), e.what());
    }
}

ATTNSCOPE_GUILESS_MAIN(TestTokenizerJson)
#include "test_tokenizerjson.moc"
