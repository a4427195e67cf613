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

JsonDuplicate findDuplicateKey(const std::string& text) {
    // A SAX pass: the DOM parser's callback would do the same job, but it rescans the enclosing object each
    // time an inner one closes, which took 101 s on a safetensors header of 100,000 tensors.
    struct Finder : nlohmann::json_sax<nlohmann::json> {
        std::vector<std::set<std::string>> keys; // one set per open object; arrays push nothing
        std::vector<bool> isObject;
        JsonDuplicate found;
        bool null() override { return true; }
        bool boolean(bool) override { return true; }
        bool number_integer(number_integer_t) override { return true; }
        bool number_unsigned(number_unsigned_t) override { return true; }
        bool number_float(number_float_t, const string_t&) override { return true; }
        bool string(string_t&) override { return true; }
        bool binary(binary_t&) override { return true; }
        bool start_object(std::size_t) override {
            keys.emplace_back();
            isObject.push_back(true);
            return true;
        }
        bool key(string_t& k) override {
            if (!keys.back().insert(k).second) {
                found = {k, static_cast<int>(isObject.size())};
                return false; // the first is enough
            }
            return true;
        }
        bool end_object() override {
            keys.pop_back();
            isObject.pop_back();
            return true;
        }
        bool start_array(std::size_t) override {
            isObject.push_back(false);
            return true;
        }
        bool end_array() override {
            isObject.pop_back();
            return true;
        }
        bool parse_error(std::size_t, const std::string&, const nlohmann::detail::exception&) override {
            return false; // the parse proper reports it, with the library's wording
        }
    } finder;
    nlohmann::json::sax_parse(text, &finder);
    return finder.found;
}

nlohmann::json parseJsonObject(const std::string& text, const std::string& source) {
    checkJsonNesting(text, source);
    nlohmann::json j;
    try {
        j = nlohmann::json::parse(text);
    } catch (const nlohmann::json::exception& e) { // a syntax error, or a number out of range (1e400)
        throw FormatError(source + ": not valid JSON: " + e.what());
    }
    // Duplicate keys are refused at every level: the JSON library keeps the last, so a file could say two
    // things and be read as one of them.
    const auto duplicate = findDuplicateKey(text);
    if (!duplicate.key.empty())
        throw FormatError(source + ": the key \"" + duplicate.key + "\" appears twice in one object");
    if (!j.is_object())
        throw FormatError(source + ": must hold a JSON object");
    return j;
}

} // namespace core
