#include "core/text/hf/HfUnigramModel.h"

#include "core/base/Errors.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cstdio>
#include <optional>

namespace core {

using nlohmann::json;

namespace {

// The tokenizers library's penalty for an unknown character below the lowest piece's score.
constexpr double kUnknownPenalty = 10.0;

std::size_t utf8Length(unsigned char lead) {
    return lead < 0x80 ? 1 : (lead >> 5) == 0x6 ? 2 : (lead >> 4) == 0xE ? 3 : (lead >> 3) == 0x1E ? 4 : 1;
}

} // namespace

HfUnigramModel HfUnigramModel::fromJson(const json& j, const std::string& source) {
    const auto where = source + ": model";
    HfUnigramModel m;
    if (!j.contains("vocab") || !j["vocab"].is_array())
        throw FormatError(where + ": a Unigram 'vocab' must be a list of [piece, score]");
    for (const auto& entry : j["vocab"]) {
        if (!entry.is_array() || entry.size() != 2 || !entry[0].is_string() || !entry[1].is_number())
            throw FormatError(where + ": vocabulary entry " + std::to_string(m.scores_.size()) +
                              " must be [piece, score]");
        const auto piece = entry[0].get<std::string>();
        m.vocab_[piece] = static_cast<int64_t>(m.scores_.size()); // a repeated piece: the last wins, as there
        m.scores_.push_back(entry[1].get<double>());
        m.longest_ = std::max(m.longest_, piece.size());
    }
    if (m.scores_.empty())
        throw FormatError(where + ": the Unigram vocabulary is empty");
    if (j.contains("unk_id") && !j["unk_id"].is_null()) {
        if (!j["unk_id"].is_number_unsigned() || j["unk_id"].get<std::size_t>() >= m.scores_.size())
            throw FormatError(where + ": 'unk_id' must be an id of the vocabulary");
        m.unk_ = j["unk_id"].get<int64_t>();
    }
    m.byteFallback_ =
        j.contains("byte_fallback") && j["byte_fallback"].is_boolean() && j["byte_fallback"].get<bool>();
    m.unkScore_ = *std::min_element(m.scores_.begin(), m.scores_.end()) - kUnknownPenalty;
    return m;
}

std::vector<int64_t> HfUnigramModel::encode(const std::string& word) const {
    // best[i]: the best split of the first i bytes, as (score, where its last piece starts, that piece's id).
    struct Best {
        double score = 0.0;
        std::optional<std::size_t> from;
        int64_t id = 0;
    };
    const auto n = word.size();
    std::vector<Best> best(n + 1);
    for (std::size_t at = 0; at < n;) {
        const double here = best[at].score;
        const std::size_t charLen = std::min(utf8Length(static_cast<unsigned char>(word[at])), n - at);
        bool single = false; // whether a piece covers just this character
        for (std::size_t len = 1; len <= longest_ && at + len <= n; ++len) {
            const auto it = vocab_.find(word.substr(at, len));
            if (it == vocab_.end())
                continue;
            auto& target = best[at + len];
            const double score = here + scores_[static_cast<std::size_t>(it->second)];
            if (!target.from || score > target.score)
                target = {score, at, it->second};
            single = single || len == charLen;
        }
        if (!single) {
            if (unk_ < 0) // as the library: a Unigram model without an unknown token cannot go on
                throw InputError("the tokenizer has no piece for \"" + word.substr(at, charLen) +
                                 "\" and no unknown token to stand for it");
            auto& target = best[at + charLen];
            const double score = here + unkScore_;
            if (!target.from || score > target.score)
                target = {score, at, unk_};
        }
        at += charLen;
    }
    // Back from the end; unknown characters next to each other become one unknown piece.
    std::vector<std::string> pieces;
    std::string unknown;
    for (std::size_t end = n; end > 0;) {
        const auto& node = best[end];
        const auto start = *node.from;
        if (unk_ >= 0 && node.id == unk_) {
            unknown.insert(0, word.substr(start, end - start));
        } else {
            if (!unknown.empty())
                pieces.push_back(std::move(unknown)), unknown.clear();
            pieces.push_back(word.substr(start, end - start));
        }
        end = start;
    }
    if (!unknown.empty())
        pieces.push_back(std::move(unknown));
    std::reverse(pieces.begin(), pieces.end());

    std::vector<int64_t> ids;
    for (const auto& piece : pieces) {
        if (const auto it = vocab_.find(piece); it != vocab_.end()) {
            ids.push_back(it->second);
            continue;
        }
        if (byteFallback_ && appendBytes(piece, ids))
            continue;
        ids.push_back(unk_);
    }
    return ids;
}

} // namespace core
