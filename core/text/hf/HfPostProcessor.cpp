#include "core/text/hf/HfPostProcessor.h"

#include "core/base/Errors.h"

#include <nlohmann/json.hpp>

namespace core {

using nlohmann::json;

namespace {

int64_t idCheck(const json& v, const std::string& where) {
    if (!v.is_number_unsigned())
        throw FormatError(where + ": a special token's id must be a whole number from 0");
    return v.get<int64_t>();
}

} // namespace

HfPostProcessor HfPostProcessor::fromJson(const json& j, const std::string& source,
                                          const std::function<int64_t(const std::string&)>& idOf) {
    HfPostProcessor p;
    if (!j.is_null())
        p.read(j, source, idOf);
    return p;
}

void HfPostProcessor::read(const json& post, const std::string& name,
                           const std::function<int64_t(const std::string&)>& idOf) {
    const auto where = name + ": post_processor";
    if (!post.is_object() || !post.contains("type") || !post["type"].is_string())
        throw FormatError(where + " must be an object with a \"type\"");
    const auto type = post["type"].get<std::string>();
    if (type == "Sequence") {
        if (!post.contains("processors") || !post["processors"].is_array())
            throw FormatError(where + " Sequence: 'processors' must be a list");
        for (const auto& p : post["processors"])
            read(p, name, idOf);
    } else if (type == "TemplateProcessing") {
        readTemplate(post, where + " TemplateProcessing", idOf);
    } else if (type == "BertProcessing" || type == "RobertaProcessing") {
        for (const char* part : {"cls", "sep"}) {
            const auto& v = post.contains(part) ? post[part] : json();
            if (!v.is_array() || v.size() != 2 || !v[0].is_string())
                throw FormatError(where + " " + type + ": '" + part + "' must be [token, id]");
            (std::string(part) == "cls" ? prefix_ : suffix_).push_back(idCheck(v[1], where + " " + type));
        }
    } else if (type != "ByteLevel") {
        throw FormatError(where + " " + type +
                          " is not supported (attnscope reads TemplateProcessing, BertProcessing, "
                          "RobertaProcessing, ByteLevel and Sequence)");
    }
}

void HfPostProcessor::readTemplate(const json& post, const std::string& where,
                                   const std::function<int64_t(const std::string&)>& idOf) {
    if (!post.contains("single") || !post["single"].is_array())
        throw FormatError(where + ": 'single' must be a list");
    const auto& specials = post.contains("special_tokens") ? post["special_tokens"] : json::object();
    int copies = 0;
    std::vector<int64_t> before, after;
    for (const auto& item : post["single"]) {
        if (item.is_object() && item.contains("Sequence")) {
            const auto& s = item["Sequence"];
            const auto id = s.is_object() && s.contains("id") && s["id"].is_string()
                                ? s["id"].get<std::string>()
                                : std::string();
            if (id != "A")
                throw FormatError(where + ": 'single' holds the sequence " + (id.empty() ? "?" : "$" + id) +
                                  "; one sequence is $A");
            // The text is framed once between prefix and suffix, its copies side by side; a special token
            // between two copies would need a frame of three parts.
            if (copies > 0 && !after.empty())
                throw FormatError(where + ": 'single' puts special tokens between two copies of the text; "
                                          "attnscope frames a sequence as special tokens, the text, special "
                                          "tokens");
            ++copies;
            continue;
        }
        if (!item.is_object() || !item.contains("SpecialToken") || !item["SpecialToken"].is_object() ||
            !item["SpecialToken"].contains("id") || !item["SpecialToken"]["id"].is_string())
            throw FormatError(where +
                              ": an item of 'single' must be a Sequence or a SpecialToken with an \"id\"");
        const auto key = item["SpecialToken"]["id"].get<std::string>();
        auto& out = copies == 0 ? before : after;
        if (specials.is_object() && specials.contains(key) && specials[key].is_object() &&
            specials[key].contains("ids") && specials[key]["ids"].is_array()) {
            for (const auto& id : specials[key]["ids"])
                out.push_back(idCheck(id, where));
        } else {
            out.push_back(idOf(key));
        }
    }
    if (copies == 0)
        throw FormatError(where + ": 'single' has no $A, so the text would not be read at all");
    prefix_.insert(prefix_.end(), before.begin(), before.end());
    suffix_.insert(suffix_.end(), after.begin(), after.end());
    copies_ *= copies;
}

} // namespace core
