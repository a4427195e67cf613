#include "core/train/LanguageModelData.h"

#include "core/base/Errors.h"
#include "core/base/Files.h"
#include "core/text/BpeTrainer.h"
#include "core/train/TrainRecipe.h"

#include <filesystem>
#include <random>

namespace core {

namespace fs = std::filesystem;

LanguageModelData::LanguageModelData(const TrainRecipe& recipe, const std::string& runDir) {
    const auto docs = TextCorpus::readDocuments(recipe.resolve(recipe.corpus));
    const auto dir = fs::path(runDir) / "bpe";
    const auto vocabPath = dir / "vocab.json", mergesPath = dir / "merges.txt";
    if (!fs::exists(vocabPath) || !fs::exists(mergesPath)) {
        BpeTrainOptions o;
        o.vocabSize = recipe.bpeVocabSize;
        const auto bpe = trainByteLevelBpe(docs, o);
        // Refused before anything is written: a short vocabulary left in the run would be taken for the run's
        // own by the next start in this directory, even after the text has been fixed.
        if (bpe.size() != recipe.bpeVocabSize)
            throw ModelError(recipe.resolve(recipe.corpus) + ": its text has frequent pairs for only " +
                             std::to_string(bpe.size()) + " tokens but the recipe's bpe_vocab_size is " +
                             std::to_string(recipe.bpeVocabSize) + " (give more text or a smaller size)");
        std::error_code ec;
        fs::create_directories(dir, ec);
        if (ec)
            throw IoError("cannot create " + dir.string() + ": " + ec.message());
        writeFileAtomically(mergesPath.string(), bpe.mergesText());
        writeFileAtomically(vocabPath.string(), bpe.vocabJson());
    }
    tokenizer_ = BpeTokenizer::fromFiles(vocabPath.string(), mergesPath.string());
    if (tokenizer_->vocab().size() != recipe.bpeVocabSize)
        throw ModelError(
            vocabPath.string() + ": holds " + std::to_string(tokenizer_->vocab().size()) +
            " tokens but the recipe's bpe_vocab_size is " + std::to_string(recipe.bpeVocabSize) +
            " (the text has too few distinct pairs for that many, or the run's vocabulary is older)");
    train_ = std::make_unique<TextCorpus>(docs, *tokenizer_);
    valid_ =
        std::make_unique<TextCorpus>(TextCorpus::readDocuments(recipe.resolve(recipe.valid)), *tokenizer_);
}

std::vector<std::vector<int64_t>> LanguageModelData::batch(uint64_t seed, int64_t step, int64_t rows,
                                                           int64_t length) const {
    const auto u = static_cast<uint64_t>(step);
    std::seed_seq seq{static_cast<uint32_t>(seed), static_cast<uint32_t>(seed >> 32),
                      static_cast<uint32_t>(u), static_cast<uint32_t>(u >> 32), 0x1A96u};
    std::mt19937_64 rng(seq);
    std::uniform_int_distribution<std::size_t> pick(0, train_->documents() - 1);
    std::vector<std::vector<int64_t>> out;
    out.reserve(static_cast<std::size_t>(rows));
    for (int64_t r = 0; r < rows; ++r)
        out.push_back(train_->window(pick(rng), length));
    return out;
}

} // namespace core
