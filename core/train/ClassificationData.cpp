#include "core/train/ClassificationData.h"

#include "core/base/Errors.h"
#include "core/base/Files.h"
#include "core/text/WordTokenizer.h"
#include "core/train/TrainRecipe.h"

#include <algorithm>
#include <filesystem>
#include <unordered_map>

namespace core {

namespace fs = std::filesystem;

namespace {

// The specials, then the most frequent words (ties in byte order, so the vocabulary is the same everywhere).
Vocabulary wordVocabulary(const std::vector<SentencePair>& train, int size, const std::string& path) {
    const WordTokenizer splitter(Vocabulary::fromTokens({}), /*lowercase=*/true);
    std::unordered_map<std::string, int64_t> counts;
    for (const auto& p : train)
        for (auto& w : splitter.pieces(p.source))
            ++counts[std::move(w)];
    std::vector<std::pair<std::string, int64_t>> words(counts.begin(), counts.end());
    const auto wanted = static_cast<std::size_t>(size - 4);
    if (words.size() < wanted)
        throw InputError(path + ": the texts hold " + std::to_string(words.size()) +
                         " distinct words; word_vocab_size " + std::to_string(size) + " asks for " +
                         std::to_string(wanted) + " after the 4 specials");
    std::partial_sort(words.begin(), words.begin() + static_cast<std::ptrdiff_t>(wanted), words.end(),
                      [](const auto& a, const auto& b) {
                          return a.second != b.second ? a.second > b.second : a.first < b.first;
                      });
    std::vector<std::string> tokens;
    for (std::size_t i = 0; i < wanted; ++i)
        tokens.push_back(words[i].first);
    return Vocabulary::fromTokens(tokens);
}

} // namespace

std::vector<SentencePair> readLabelledTexts(const std::string& path,
                                            const std::vector<std::string>& classes) {
    auto rows = readSentencePairs(path);
    for (std::size_t i = 0; i < rows.size(); ++i) {
        if (std::find(classes.begin(), classes.end(), rows[i].source) == classes.end())
            throw FormatError(path + ": line " + std::to_string(i + 1) + " has the label \"" +
                              rows[i].source + "\", which is not one of the model's classes");
        std::swap(rows[i].source, rows[i].target);
    }
    return rows;
}

ClassificationData::ClassificationData(const TrainRecipe& recipe, const std::string& runDir) {
    const auto& classes = recipe.model.classes;
    const auto corpus = recipe.resolve(recipe.corpus);
    const auto train = readLabelledTexts(corpus, classes);
    valid_ = readLabelledTexts(recipe.resolve(recipe.valid), classes);
    const auto vocabPath = fs::path(runDir) / "vocab.json";
    if (!fs::exists(vocabPath)) {
        std::error_code ec;
        fs::create_directories(runDir, ec);
        writeFileAtomically(vocabPath.string(), wordVocabulary(train, recipe.wordVocabSize, corpus).toJson());
    }
    tokenizer_ =
        std::make_unique<WordTokenizer>(Vocabulary::fromFile(vocabPath.string()), /*lowercase=*/true);
    if (tokenizer_->vocab().size() != recipe.wordVocabSize)
        throw ModelError(vocabPath.string() + ": holds " + std::to_string(tokenizer_->vocab().size()) +
                         " words but the recipe's word_vocab_size is " +
                         std::to_string(recipe.wordVocabSize));
    for (const auto& p : train) {
        EncodedPair e;
        for (const auto& t : tokenizer_->tokenize(p.source)) {
            // A mail's first words decide. One past max_tokens: the trainer cuts <bos> text <eos> at max_len
            // (max_tokens + 2) as the window cuts a long text, so a long text ends without <eos> in both.
            if (static_cast<int>(e.src.size()) == recipe.maxTokens + 1)
                break;
            e.src.push_back(t.id);
        }
        if (e.src.empty())
            continue;
        e.tgt = {std::find(classes.begin(), classes.end(), p.target) - classes.begin()};
        examples_.push_back(std::move(e));
    }
    if (examples_.empty())
        throw InputError(corpus + ": no text to learn from");
}

ClassificationData::~ClassificationData() = default;

} // namespace core
