#pragma once
// The JSON files of a model directory (config.json, vocab.json) parsed with one wording of what is wrong.

#include <nlohmann/json.hpp>

#include <string>

namespace core {

/// How deep a JSON file the program reads may nest; config.json, vocab.json, recipes and checkpoint states
/// need four levels.
inline constexpr int kMaxJsonDepth = 64;

/// Throws FormatError naming `source` when text nests deeper than kMaxJsonDepth (brackets inside strings
/// do not count): a value nested tens of thousands deep would exhaust the stack when it is destroyed.
void checkJsonNesting(const std::string& text, const std::string& source);

/// A key that appears twice in one object, and how deep that object is (1 for the outermost).
struct JsonDuplicate {
    std::string key; ///< empty when every object's keys are distinct
    int depth = 0;
};
/// The first repeated key in valid JSON text (the JSON library keeps only the last of them); linear in the
/// text. Assumes the nesting was checked.
JsonDuplicate findDuplicateKey(const std::string& text);

/// Parses text that must hold a JSON object. Throws FormatError naming `source` for invalid JSON (a number
/// out of range included), nesting deeper than kMaxJsonDepth, a key twice in one object, or a value that is
/// not an object.
nlohmann::json parseJsonObject(const std::string& text, const std::string& source);

} // namespace core
