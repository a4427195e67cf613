#include "core/text/SentencePieceTokenizer.h"

#include "core/base/Errors.h"
#include "core/base/Files.h"
#include "core/base/FolderLinks.h"

namespace core {

SentencePieceTokenizer::SentencePieceTokenizer(Vocabulary vocab, SpmProcessor sp)
    : Tokenizer(std::move(vocab)), sp_(std::move(sp)) {}

SentencePieceTokenizer::~SentencePieceTokenizer() = default;

std::unique_ptr<SentencePieceTokenizer> SentencePieceTokenizer::fromFile(const std::string& path) {
    return fromBytes(readFolderFile(path), path);
}

std::unique_ptr<SentencePieceTokenizer> SentencePieceTokenizer::fromBytes(std::string bytes,
                                                                          const std::string& name) {
    auto sp = SpmProcessor::fromBytes(std::move(bytes), name);
    std::vector<std::string> tokens;
    const int n = sp.size();
    tokens.reserve(static_cast<std::size_t>(n));
    for (int id = 0; id < n; ++id)
        tokens.push_back(sp.idToPiece(id));
    // Vocabulary::fromTokens would add missing specials in front and shift every id; refuse instead.
    for (const char* special : {Vocabulary::kPad, Vocabulary::kBos, Vocabulary::kEos, Vocabulary::kUnk}) {
        if (sp.idToPiece(sp.pieceToId(special)) != special)
            throw FormatError(name + ": the SentencePiece model has no piece " + special +
                              "; attnscope needs <pad>, <bos>, <eos> and <unk> (train with --pad_piece=<pad> "
                              "--bos_piece=<bos> --eos_piece=<eos> --unk_piece=<unk> and a pad_id)");
    }
    auto vocab = Vocabulary::fromTokens(tokens);
    if (vocab.size() != n)
        throw FormatError(name + ": the SentencePiece model has repeated pieces");
    return std::unique_ptr<SentencePieceTokenizer>(
        new SentencePieceTokenizer(std::move(vocab), std::move(sp)));
}

std::string SentencePieceTokenizer::train(const std::vector<std::string>& sentences, const TrainOptions& o) {
    const std::vector<std::pair<std::string, std::string>> options = {
        {"model_type", o.modelType},
        {"vocab_size", std::to_string(o.vocabSize)},
        {"character_coverage", std::to_string(o.characterCoverage)},
        {"byte_fallback", "true"},
        {"split_digits", "true"},
        {"pad_id", "0"},
        {"bos_id", "1"},
        {"eos_id", "2"},
        {"unk_id", "3"},
        {"pad_piece", Vocabulary::kPad},
        {"bos_piece", Vocabulary::kBos},
        {"eos_piece", Vocabulary::kEos},
        {"unk_piece", Vocabulary::kUnk},
        {"num_threads", std::to_string(o.threads)},
        {"input_sentence_size", std::to_string(o.maxSentences)},
        // Without shuffling the first maxSentences are read, so the same corpus gives the same model.
        {"shuffle_input_sentence", "false"},
        {"minloglevel", "2"},
    };
    return SpmProcessor::train(sentences, options);
}

std::vector<Token> SentencePieceTokenizer::tokenize(const std::string& text) const {
    const int unk = sp_.unkId();
    std::vector<Token> out;
    for (auto& p : sp_.encode(text)) {
        Token t;
        t.id = p.id;
        t.unknown = p.id == unk;
        // An unknown piece is shown as what was typed, not as <unk>.
        t.text = t.unknown ? std::move(p.surface) : std::move(p.piece);
        out.push_back(std::move(t));
    }
    return out;
}

std::string SentencePieceTokenizer::detokenize(const std::vector<int64_t>& ids) const {
    std::vector<int> kept;
    for (const auto id : ids)
        if (id >= 0 && id < vocab().size() && !vocab().isSpecial(id))
            kept.push_back(static_cast<int>(id));
    return sp_.decode(kept);
}

std::vector<std::string> SentencePieceTokenizer::pieces(const std::string& text) const {
    std::vector<std::string> out;
    for (auto& p : sp_.encode(text))
        out.push_back(std::move(p.piece));
    return out;
}

std::unique_ptr<Tokenizer> SentencePieceTokenizer::clone() const {
    return std::unique_ptr<Tokenizer>(new SentencePieceTokenizer(vocab(), sp_));
}

} // namespace core
