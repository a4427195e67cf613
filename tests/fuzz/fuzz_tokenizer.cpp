// Fuzz target: a Hugging Face tokenizer.json with its tokenizer_config.json (core::HfTokenizer::fromText),
// then encoding and decoding with the tokenizer it gives.
//
// The input is tokenizer.json, then optional sections (FuzzSections.h): "=== tokenizer_config.json" (the
// special tokens' names), "=== text" (a text to encode besides the fixed ones; its first 256 bytes, as a
// regex can take time exponential in the text) and "=== rows" (the model's embedding rows, as config.json's
// vocab_size gives them to the reader). A file the reader refuses must be refused with a core::Error naming
// it. A file it accepts must give what a model directory relies on:
// - every id it hands out, the post-processor's and the four named specials included, is one of its
//   vocabulary's, and a token marked unknown is the unknown token;
// - encoding a text twice, or with a clone, gives the same ids, and decoding them does not throw;
// - the files it would save (fileContents, extraFiles) read back as a tokenizer with the same vocabulary and
//   the same ids for every text: a saved model must load as the one that was saved.
// Encoding may refuse a text with a core::Error (a regex's time limit); nothing else may escape.
//
// The seeds are real files' shapes (GPT-2's byte-level BPE, BERT's WordPiece, a Unigram) and the cases that
// break readers: a Split or Replace regex with nested quantifiers, one that matches only empty strings, an
// added token with id 16,777,215, 20,000 added tokens, a template "[CLS] $A $A [SEP]", "special": null,
// rows 16,777,215 against a small file.
//
//   build-fuzz/tests/fuzz/fuzz_tokenizer tests/fuzz/corpus/fuzz_tokenizer   (scripts/fuzz.sh runs it)

#include "FuzzSections.h"

#include "core/base/Errors.h"
#include "core/text/hf/HfTokenizer.h"

#include <cstdint>
#include <cstdlib>
#include <string>
#include <vector>

namespace {

// Texts every accepted file encodes: words, punctuation, spaces of each kind, accents, an emoji, a digit run,
// invalid UTF-8, and the long word that makes a nested quantifier backtrack.
const std::vector<std::string>& fixedTexts() {
    static const std::vector<std::string> texts = {
        "",
        "Hello, world!",
        "  two  spaces\tand a tab\nand a newline ",
        "caf\xc3\xa9 na\xc3\xafve \xc3\x9c"
        "ber \xf0\x9f\x98\x80 12345",
        "ab\xff\xfe\xc3(",
        "aaaaaaaaaaaaaaaaaaaaaaaaaaaa!",
    };
    return texts;
}

std::vector<int64_t> ids(const std::vector<core::Token>& tokens) {
    std::vector<int64_t> out;
    for (const auto& t : tokens)
        out.push_back(t.id);
    return out;
}

void checkId(const core::Tokenizer& t, int64_t id) {
    if (id < 0 || id >= t.vocab().size())
        std::abort();
}

// The ids of `text`, checked; empty with ok false when the tokenizer refuses the text.
std::vector<int64_t> encode(const core::Tokenizer& t, const std::string& text, bool& ok) {
    ok = true;
    std::vector<core::Token> tokens;
    try {
        tokens = t.tokenize(text);
    } catch (const core::Error&) {
        ok = false;
        return {};
    }
    for (const auto& tok : tokens) {
        checkId(t, tok.id);
        if (tok.unknown && tok.id != t.vocab().unk())
            std::abort();
    }
    return ids(tokens);
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    const auto parts = fuzz::sections(std::string(reinterpret_cast<const char*>(data), size));
    const auto* config = fuzz::find(parts, "tokenizer_config.json");
    const auto* typed = fuzz::find(parts, "text");
    const auto* rowsText = fuzz::find(parts, "rows");
    // As config.json's vocab_size reaches the reader: ModelConfig has checked it is 1 to 2^24.
    const int64_t rows = rowsText ? std::strtoll(rowsText->c_str(), nullptr, 10) : 0;
    if (rows < 0 || rows > (int64_t{1} << 24))
        return 0;
    // Rows reach the reader only from a checkpoint whose embedding has that many (ModelDirectory checks
    // vocab_size against the weights), so naming millions of them costs what such a checkpoint costs to
    // read: bounded here, or a campaign would spend its time building tables.
    if (rows > (int64_t{1} << 20))
        return 0;
    std::unique_ptr<core::HfTokenizer> tokenizer;
    try {
        tokenizer = core::HfTokenizer::fromText(parts[0].body, config ? *config : std::string(),
                                                "tokenizer.json", rows);
    } catch (const core::Error&) {
        return 0;
    }
    const auto& t = *tokenizer;
    if (t.vocab().size() <= 0)
        std::abort();
    for (const auto id : t.prefixIds())
        checkId(t, id);
    for (const auto id : t.suffixIds())
        checkId(t, id);
    for (const auto id : {t.vocab().pad(), t.vocab().bos(), t.vocab().eos(), t.vocab().unk()})
        checkId(t, id);

    auto texts = fixedTexts();
    if (typed)
        texts.push_back(typed->substr(0, 256));
    // The saved files, read back as a model directory reads them; an exception here escapes, a finding.
    std::string savedConfig;
    for (const auto& [name, contents] : t.extraFiles("merges.txt"))
        if (name == "tokenizer_config.json")
            savedConfig = contents;
    const auto again =
        core::HfTokenizer::fromText(t.fileContents(), savedConfig, "saved tokenizer.json", rows);
    if (again->vocab().size() != t.vocab().size() || again->prefixIds() != t.prefixIds() ||
        again->suffixIds() != t.suffixIds() || again->vocab().unk() != t.vocab().unk())
        std::abort();
    const auto copy = t.clone();
    for (const auto& text : texts) {
        bool ok = false, okAgain = false, okCopy = false;
        const auto first = encode(t, text, ok);
        if (!ok)
            continue;
        const auto second = encode(*copy, text, okCopy);
        const auto third = encode(*again, text, okAgain);
        if ((okCopy && second != first) || (okAgain && third != first))
            std::abort();
        try {
            (void)t.detokenize(first);
        } catch (const core::Error&) { // a decoder's regex may refuse as an encoder's may
        }
    }
    return 0;
}
