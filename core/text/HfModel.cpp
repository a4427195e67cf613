#include "core/text/HfModel.h"

#include "core/base/Errors.h"

#include <nlohmann/json.hpp>

namespace core {

void HfModel::readVocab(const nlohmann::json& j, const std::string& where) {
    if (!j.contains("vocab") || !j["vocab"].is_object())
        throw FormatError(where + ": 'vocab' must be an object of token: id");
    for (const auto& [token, id] : j["vocab"].items()) {
        if (!id.is_number_integer() || id.get<int64_t>() < 0 || id.get<int64_t>() >= (int64_t{1} << 31))
            throw FormatError(where + ": the id of '" + token + "' must be a whole number from 0");
        vocab_.emplace(token, id.get<int64_t>());
    }
}

} // namespace core
