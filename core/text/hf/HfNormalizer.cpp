#include "core/text/hf/HfNormalizer.h"

#include "core/base/Errors.h"
#include "core/text/UnicodeText.h"

#include <nlohmann/json.hpp>

namespace core {

using nlohmann::json;

namespace {

std::string stringOf(const json& j, const char* key, const std::string& where) {
    if (!j.contains(key) || !j[key].is_string())
        throw FormatError(where + ": '" + key + "' must be a string");
    return j[key].get<std::string>();
}

bool flagOf(const json& j, const char* key, bool fallback) {
    return j.contains(key) && j[key].is_boolean() ? j[key].get<bool>() : fallback;
}

} // namespace

void HfNormalizer::parse(const json& j, const std::string& source, std::vector<Step>& out) {
    if (!j.is_object() || !j.contains("type") || !j["type"].is_string())
        throw FormatError(source + ": a normalizer must be an object with a \"type\"");
    const auto type = j["type"].get<std::string>();
    const auto where = source + ": normalizer " + type;
    if (type == "Sequence") {
        if (!j.contains("normalizers") || !j["normalizers"].is_array())
            throw FormatError(where + ": 'normalizers' must be a list");
        for (const auto& n : j["normalizers"])
            parse(n, source, out);
        return;
    }
    Step s;
    s.type = type;
    if (type == "Prepend") {
        s.text = stringOf(j, "prepend", where);
    } else if (type == "Replace") {
        const auto& p = j.contains("pattern") ? j["pattern"] : json();
        if (p.is_object() && p.contains("String") && p["String"].is_string())
            s.text = p["String"].get<std::string>();
        else if (p.is_object() && p.contains("Regex") && p["Regex"].is_string())
            s.regex = std::make_shared<const TextRegex>(libraryRegex(p["Regex"].get<std::string>()), where,
                                                        p["Regex"].get<std::string>());
        else
            throw FormatError(where + ": 'pattern' must be {\"String\": …} or {\"Regex\": …}");
        s.content = stringOf(j, "content", where);
    } else if (type == "BertNormalizer") {
        s.clean = flagOf(j, "clean_text", true);
        s.cjk = flagOf(j, "handle_chinese_chars", true);
        s.lower = flagOf(j, "lowercase", true);
        // null: accents are stripped when the text is lowercased.
        s.accents = j.contains("strip_accents") && j["strip_accents"].is_boolean()
                        ? j["strip_accents"].get<bool>()
                        : s.lower;
    } else if (type == "Strip") {
        s.left = flagOf(j, "left", true);
        s.right = flagOf(j, "right", true);
    } else if (type != "NFC" && type != "NFD" && type != "NFKC" && type != "NFKD" && type != "Lowercase" &&
               type != "StripAccents") {
        throw FormatError(where + " is not supported (attnscope reads Sequence, NFC, NFD, NFKC, NFKD, "
                                  "Lowercase, Strip, StripAccents, Prepend, Replace and BertNormalizer)");
    }
    out.push_back(std::move(s));
}

HfNormalizer HfNormalizer::fromJson(const json& j, const std::string& source) {
    HfNormalizer n;
    if (!j.is_null())
        parse(j, source, n.steps_);
    return n;
}

std::string HfNormalizer::apply(const std::string& input) const {
    std::string text = input;
    for (const auto& s : steps_) {
        if (s.type == "NFC")
            text = normalizeText(text, NormalForm::NFC);
        else if (s.type == "NFD")
            text = normalizeText(text, NormalForm::NFD);
        else if (s.type == "NFKC")
            text = normalizeText(text, NormalForm::NFKC);
        else if (s.type == "NFKD")
            text = normalizeText(text, NormalForm::NFKD);
        else if (s.type == "Lowercase")
            text = lowercaseText(text);
        else if (s.type == "StripAccents")
            text = removeMarks(text); // the library's own step: no decomposition first, every mark removed
        else if (s.type == "Strip")
            text = stripWhitespace(text, s.left, s.right);
        else if (s.type == "Prepend" && !text.empty()) // the library prepends to non-empty text only
            text = s.text + text;
        else if (s.type == "BertNormalizer") {
            if (s.clean)
                text = bertCleanText(text);
            if (s.cjk)
                text = spaceOutCjk(text);
            if (s.accents)
                text = stripAccents(text);
            if (s.lower)
                text = lowercaseText(text);
        } else if (s.type == "Replace")
            text = s.regex ? s.regex->replaceAll(text, s.content) : replaceText(text, s.text, s.content);
    }
    return text;
}

} // namespace core
