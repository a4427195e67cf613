// Fuzz target: BERT's vocab.txt with its tokenizer_config.json, read as a folder without tokenizer.json is
// read (core::wordPieceTokenizerJson, then core::HfTokenizer::fromText), then encoding with the tokenizer.
//
// Two forms of input (FuzzSections.h):
// - vocab.txt's bytes, then optionally "=== tokenizer_config.json" and its bytes: read in memory, as
//   core::readTokenizer reads them once it has them (most inputs; fast);
// - an input that starts with "=== " is a folder: its files, directories and links (a link may point to
//   "../outside-vocab.txt" or "../outside-config.json", files beside the folder) are made, and the folder is
//   read by core::readTokenizer itself, so vocab.txt or tokenizer_config.json as a directory, a dangling
//   link or a link out of the folder reach the reader.
// A folder or file the reader refuses must be refused with a core::Error naming it. One it accepts must
// have read nothing outside the folder (core/base/FolderLinks.h), and give what it promises
// (WordPieceVocab.h): one id per line of vocab.txt, [CLS] before and [SEP] after a sequence (or the names
// tokenizer_config.json gives), and ids of its vocabulary for every text, the unknown token for what it
// cannot spell. The seeds: a small BERT vocabulary, CRLF, blank lines, a token listed twice, no [UNK], [CLS]
// or [SEP], invalid UTF-8, a config renaming the specials or with wrong types, and folders with links out of
// the folder and links where a file should be.
//
//   build-fuzz/tests/fuzz/fuzz_vocabtxt tests/fuzz/corpus/fuzz_vocabtxt   (scripts/fuzz.sh runs it)

#include "FuzzSections.h"

#include "core/base/Errors.h"
#include "core/text/TokenizerFactory.h"
#include "core/text/hf/HfTokenizer.h"
#include "core/text/hf/WordPieceVocab.h"

#include <cstdint>
#include <cstdlib>
#include <memory>
#include <sstream>
#include <string>
#include <vector>

namespace {

namespace fs = std::filesystem;

const std::vector<std::string> kTexts = {
    "",
    "Hello, world!",
    "unaffable running",
    "CAF\xc3\x89 na\xc3\xafve \xe4\xb8\xad\xe6\x96\x87 \xf0\x9f\x98\x80",
    "[CLS] a [SEP] [MASK]",
    "ab\xff\xfe\xc3(",
    "xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx!",
};

void checkEncodes(const core::Tokenizer& t, const std::vector<std::string>& texts) {
    const auto n = t.vocab().size();
    for (const auto id : t.promptPrefix())
        if (id < 0 || id >= n)
            std::abort();
    for (const auto id : t.promptSuffix())
        if (id < 0 || id >= n)
            std::abort();
    for (const auto& text : texts) {
        std::vector<int64_t> ids;
        for (const auto& tok : t.tokenize(text)) {
            if (tok.id < 0 || tok.id >= n || (tok.unknown && tok.id != t.vocab().unk()))
                std::abort();
            ids.push_back(tok.id);
        }
        (void)t.detokenize(ids);
    }
}

// The in-memory form: vocab.txt and tokenizer_config.json as the factory reads them.
void readText(const std::vector<fuzz::Section>& parts) {
    const auto& vocabText = parts[0].body;
    const auto* configPart = fuzz::find(parts, "tokenizer_config.json");
    const auto config = configPart ? *configPart : std::string();
    std::unique_ptr<core::HfTokenizer> t;
    try {
        t = core::HfTokenizer::fromText(core::wordPieceTokenizerJson(vocabText, config, "vocab.txt"), config,
                                        "vocab.txt");
    } catch (const core::Error&) {
        return;
    }
    // One id per line, the line number its id; a token listed twice leaves its first line's id unnamed.
    std::istringstream in(vocabText);
    std::vector<std::string> lines;
    for (std::string line; std::getline(in, line);)
        lines.push_back(line);
    if (t->vocab().size() != static_cast<int64_t>(lines.size()) || t->prefixIds().size() != 1 ||
        t->suffixIds().size() != 1)
        std::abort();
    auto texts = kTexts;
    std::string firstTokens;
    for (std::size_t i = 0; i < lines.size() && i < 16; ++i)
        firstTokens += lines[i] + " ";
    texts.push_back(firstTokens);
    checkEncodes(*t, texts);
}

// The folder form: whatever the folder holds, read by the factory.
void readFolder(const std::vector<fuzz::Section>& parts) {
    static const fs::path scratch = [] {
        const auto d = fuzz::scratchFolder("fuzz-vocabtxt");
        std::ofstream(d / "outside-vocab.txt") << "[PAD]\n[UNK]\n[CLS]\n[SEP]\n[MASK]\nhello\n##s\n";
        std::ofstream(d / "outside-config.json") << R"({"do_lower_case": false, "unk_token": "[UNK]"})";
        fs::create_directory(d / "folder");
        return d;
    }();
    const auto dir = scratch / "folder";
    fuzz::clearFolder(dir);
    fuzz::buildFolder(parts, dir, true);
    core::TokenizerSpec spec;
    spec.kind = core::TokenizerKind::HfJson;
    std::unique_ptr<core::Tokenizer> t;
    try {
        t = core::readTokenizer(spec, dir.string(), "tokenizer.json");
    } catch (const core::Error&) {
        return;
    }
    // Accepted: nothing it read lay outside the folder.
    std::error_code ec;
    const bool json = fs::exists(dir / "tokenizer.json", ec);
    for (const char* name : {json ? "tokenizer.json" : "vocab.txt", "tokenizer_config.json"})
        if (fuzz::resolvesOutside(dir, dir / name))
            std::abort();
    checkEncodes(*t, kTexts);
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    const std::string in(reinterpret_cast<const char*>(data), size);
    const auto parts = fuzz::sections(in);
    if (in.rfind("=== ", 0) == 0)
        readFolder(parts);
    else
        readText(parts);
    return 0;
}
