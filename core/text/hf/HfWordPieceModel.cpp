#include "core/text/hf/HfWordPieceModel.h"

#include "core/base/Errors.h"
#include "core/text/UnicodeText.h"

#include <nlohmann/json.hpp>

namespace core {

using nlohmann::json;

HfWordPieceModel HfWordPieceModel::fromJson(const json& j, const std::string& source) {
    const auto where = source + ": model";
    HfWordPieceModel m;
    m.readVocab(j, where);
    const auto unk = j.contains("unk_token") && j["unk_token"].is_string() ? j["unk_token"].get<std::string>()
                                                                           : std::string("[UNK]");
    const auto it = m.vocab_.find(unk);
    if (it == m.vocab_.end())
        throw FormatError(where + ": the unk_token '" + unk + "' is not in the vocabulary");
    m.unk_ = it->second;
    if (j.contains("continuing_subword_prefix") && j["continuing_subword_prefix"].is_string())
        m.prefix_ = j["continuing_subword_prefix"].get<std::string>();
    if (j.contains("max_input_chars_per_word") && j["max_input_chars_per_word"].is_number_unsigned())
        m.maxChars_ = j["max_input_chars_per_word"].get<std::size_t>();
    return m;
}

std::vector<int64_t> HfWordPieceModel::encode(const std::string& word) const {
    const auto chars = codePoints(word);
    if (chars.size() > maxChars_)
        return {unk_};
    std::vector<int64_t> out;
    for (std::size_t start = 0; start < chars.size();) {
        // The longest piece from start that the vocabulary has.
        int64_t found = -1;
        std::size_t end = chars.size();
        for (; end > start; --end) {
            std::string piece = start > 0 ? prefix_ : std::string();
            for (std::size_t i = start; i < end; ++i)
                piece += chars[i];
            if (const auto it = vocab_.find(piece); it != vocab_.end()) {
                found = it->second;
                break;
            }
        }
        if (found < 0)
            return {unk_};
        out.push_back(found);
        start = end;
    }
    return out;
}

} // namespace core
