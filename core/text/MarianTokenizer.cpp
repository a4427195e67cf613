#include "core/text/MarianTokenizer.h"

#include "core/base/Errors.h"
#include "core/base/Files.h"
#include "core/base/FolderLinks.h"

#include <algorithm>

namespace core {

namespace {

// A leading language code, ">>fra<<": up to the first "<<" on the first line. (transformers 4.x matches the
// greedy ">>.+<<", which reads otherwise only a text holding "<<" again later on its first line.)
std::size_t languageCodeEnd(const std::string& text) {
    if (text.rfind(">>", 0) != 0)
        return 0;
    const auto close = text.find("<<", 3);
    return close != std::string::npos && text.find('\n') > close ? close + 2 : 0;
}

} // namespace

MarianTokenizer::MarianTokenizer(Vocabulary vocab, SpmProcessor sp, std::string vocabText)
    : Tokenizer(std::move(vocab)), sp_(std::move(sp)), vocabText_(std::move(vocabText)) {}

std::unique_ptr<MarianTokenizer> MarianTokenizer::fromFiles(const std::string& spmPath,
                                                            const std::string& vocabPath) {
    return fromContents(readFolderFile(spmPath), spmPath, readFolderFile(vocabPath), vocabPath);
}

std::unique_ptr<MarianTokenizer> MarianTokenizer::fromContents(std::string spmBytes,
                                                               const std::string& spmName,
                                                               const std::string& vocabText,
                                                               const std::string& vocabName) {
    auto sp = SpmProcessor::fromBytes(std::move(spmBytes), spmName);
    // The decoder starts at <pad> (decoder_start_token_id), so <pad> plays both parts; a source ends
    // with </s>.
    auto tokens = Vocabulary::parseTokenIds(vocabText, vocabName);
    for (const char* special : {"<pad>", "</s>", "<unk>"})
        if (std::find(tokens.begin(), tokens.end(), special) == tokens.end())
            throw FormatError(vocabName + ": no token " + special +
                              "; a Marian vocab.json numbers </s>, <unk> and <pad> among its pieces");
    auto vocab = Vocabulary::fromTokens(tokens, "<pad>", "<pad>", "</s>", "<unk>");
    return std::unique_ptr<MarianTokenizer>(new MarianTokenizer(std::move(vocab), std::move(sp), vocabText));
}

std::vector<Token> MarianTokenizer::tokenize(const std::string& text) const {
    std::vector<Token> out;
    const auto codeEnd = languageCodeEnd(text);
    if (codeEnd > 0)
        out.push_back(lookup(text.substr(0, codeEnd)));
    // A piece the side's model lacks comes back as the text it covers, which vocab.json may still hold (a
    // character only the other side's model knows): transformers looks every piece up as it is.
    for (auto& p : sp_.encode(text.substr(codeEnd))) {
        Token t;
        const auto id = vocab().find(p.piece);
        t.unknown = id < 0;
        t.id = t.unknown ? vocab().unk() : id;
        // An unknown piece is shown as what was typed, not as <unk>.
        t.text = t.unknown ? std::move(p.surface) : std::move(p.piece);
        out.push_back(std::move(t));
    }
    return out;
}

std::string MarianTokenizer::detokenize(const std::vector<int64_t>& ids) const {
    // By name through this side's SentencePiece model, which keeps a piece it lacks as written (vocab.json
    // is both sides'), then ▁ as a space and trimmed: MarianTokenizer's convert_tokens_to_string.
    std::vector<std::string> pieces;
    for (const auto id : ids)
        if (id >= 0 && id < vocab().size() && !vocab().isSpecial(id))
            pieces.push_back(vocab().token(id));
    auto text = sp_.decodePieces(pieces);
    static const std::string kSpace = "\xe2\x96\x81"; // U+2581
    for (auto at = text.find(kSpace); at != std::string::npos; at = text.find(kSpace, at + 1))
        text.replace(at, kSpace.size(), " ");
    const auto first = text.find_first_not_of(" \t\n");
    if (first == std::string::npos)
        return {};
    return text.substr(first, text.find_last_not_of(" \t\n") - first + 1);
}

std::vector<std::string> MarianTokenizer::pieces(const std::string& text) const {
    std::vector<std::string> out;
    for (auto& p : sp_.encode(text))
        out.push_back(std::move(p.piece));
    return out;
}

std::unique_ptr<Tokenizer> MarianTokenizer::clone() const {
    return std::unique_ptr<Tokenizer>(new MarianTokenizer(vocab(), sp_, vocabText_));
}

} // namespace core
