#include "core/text/hf/HfModel.h"

#include "core/base/Errors.h"

#include <nlohmann/json.hpp>

#include <cstdio>

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

bool HfModel::appendBytes(const std::string& text, std::vector<int64_t>& out) const {
    std::vector<int64_t> bytes;
    for (const unsigned char b : text) {
        char name[8];
        std::snprintf(name, sizeof name, "<0x%02X>", b);
        const auto it = vocab_.find(name);
        if (it == vocab_.end())
            return false;
        bytes.push_back(it->second);
    }
    out.insert(out.end(), bytes.begin(), bytes.end());
    return true;
}

} // namespace core
