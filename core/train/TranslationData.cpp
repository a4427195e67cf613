#include "core/train/TranslationData.h"

#include "core/base/Errors.h"
#include "core/base/Files.h"
#include "core/text/SentencePieceTokenizer.h"
#include "core/train/TrainRecipe.h"

#include <algorithm>
#include <filesystem>

namespace core {

namespace fs = std::filesystem;

TranslationData::TranslationData(const TrainRecipe& recipe, const std::string& runDir) {
    const auto train = readSentencePairs(recipe.resolve(recipe.corpus));
    valid_ = readSentencePairs(recipe.resolve(recipe.valid));
    const auto spmPath = fs::path(runDir) / "spm.model";
    std::error_code ec;
    if (!fs::exists(spmPath) && !recipe.spmModel.empty()) {
        // The pieces of another model (its spm.model), so both read a sentence alike; kept in the run like
        // a learned one, so a resumed run does not depend on the original staying put.
        // Parsed before it is copied: a file that is not a SentencePiece model (any readable file the
        // recipe happens to name) must never land in the run folder.
        const auto from = recipe.resolve(recipe.spmModel);
        const auto bytes = readFile(from);
        SentencePieceTokenizer::fromBytes(bytes, from);
        fs::create_directories(runDir, ec);
        writeFileAtomically(spmPath.string(), bytes);
    }
    if (!fs::exists(spmPath)) {
        std::vector<std::string> sentences;
        sentences.reserve(2 * train.size());
        for (const auto& p : train) {
            sentences.push_back(p.source);
            sentences.push_back(p.target);
        }
        SentencePieceTokenizer::TrainOptions o;
        o.vocabSize = recipe.spmVocabSize;
        o.modelType = recipe.spmModelType;
        o.threads = std::max(1, recipe.threads);
        fs::create_directories(runDir, ec);
        writeFileAtomically(spmPath.string(), SentencePieceTokenizer::train(sentences, o));
    }
    tokenizer_ = SentencePieceTokenizer::fromFile(spmPath.string());
    if (tokenizer_->vocab().size() != recipe.spmVocabSize)
        throw ModelError(spmPath.string() + ": holds " + std::to_string(tokenizer_->vocab().size()) +
                         " pieces but the recipe's spm_vocab_size is " + std::to_string(recipe.spmVocabSize));
    const auto encode = [&](const std::string& text) {
        std::vector<int64_t> ids;
        for (const auto& t : tokenizer_->tokenize(text))
            ids.push_back(t.id);
        return ids;
    };
    for (const auto& p : train) {
        EncodedPair e{encode(p.source), encode(p.target)};
        if (!e.src.empty() && !e.tgt.empty() && static_cast<int>(e.src.size()) <= recipe.maxTokens &&
            static_cast<int>(e.tgt.size()) <= recipe.maxTokens)
            pairs_.push_back(std::move(e));
    }
    if (pairs_.empty())
        throw InputError(recipe.resolve(recipe.corpus) + ": no pair fits max_tokens " +
                         std::to_string(recipe.maxTokens));
}

TranslationData::~TranslationData() = default;

} // namespace core
