#include "core/base/JsonText.h"

#include "core/base/Errors.h"

#include <set>
#include <vector>

namespace core {

namespace {

// The deepest nesting the text reaches, counted without parsing (a string's brackets do not count), up to
// one past `limit`: a JSON value nested tens of thousands deep would exhaust the stack when it is destroyed.
int nesting(const std::string& text, int limit) {
    int depth = 0, deepest = 0;
    bool inString = false, escaped = false;
    for (const char c : text) {
        if (inString) {
            if (escaped)
                escaped = false;
            else if (c == '\\')
                escaped = true;
            else if (c == '"')
                inString = false;
        } else if (c == '"') {
            inString = true;
        } else if (c == '{' || c == '[') {
            deepest = std::max(deepest, ++depth);
            if (deepest > limit)
                return deepest;
        } else if (c == '}' || c == ']') {
            --depth;
        }
    }
    return deepest;
}

} // namespace

void checkJsonNesting(const std::string& text, const std::string& source) {
    if (nesting(text, kMaxJsonDepth) > kMaxJsonDepth)
        throw FormatError(source + ": nested more than " + std::to_string(kMaxJsonDepth) + " levels deep");
}

nlohmann::json parseJsonObject(const std::string& text, const std::string& source) {
    checkJsonNesting(text, source);
    // Duplicate keys are refused at every level: the JSON library keeps the last, so a file could say two
    // things and be read as one of them.
    std::vector<std::set<std::string>> keys;
    std::string duplicate;
    const nlohmann::json::parser_callback_t refuseDuplicates = [&](int, nlohmann::json::parse_event_t event,
                                                                   nlohmann::json& parsed) {
        using E = nlohmann::json::parse_event_t;
        if (event == E::object_start)
            keys.emplace_back();
        else if (event == E::object_end && !keys.empty())
            keys.pop_back();
        else if (event == E::key && !keys.empty() && duplicate.empty() &&
                 !keys.back().insert(parsed.get<std::string>()).second)
            duplicate = parsed.get<std::string>();
        return true;
    };
    nlohmann::json j;
    try {
        j = nlohmann::json::parse(text, refuseDuplicates);
    } catch (const nlohmann::json::exception& e) { // a syntax error, or a number out of range (1e400)
        throw FormatError(source + ": not valid JSON: " + e.what());
    }
    if (!duplicate.empty())
        throw FormatError(source + ": the key \"" + duplicate + "\" appears twice in one object");
    if (!j.is_object())
        throw FormatError(source + ": must hold a JSON object");
    return j;
}

} // namespace core
