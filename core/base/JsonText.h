#pragma once
// The JSON files of a model directory (config.json, vocab.json) parsed with one wording of what is wrong.

#include <nlohmann/json.hpp>

#include <string>

namespace core {

/// Parses text that must hold a JSON object. Throws FormatError "<source>: not valid JSON: …" or
/// "<source>: must hold a JSON object".
nlohmann::json parseJsonObject(const std::string& text, const std::string& source);

} // namespace core
