#include "core/base/JsonText.h"

#include "core/base/Errors.h"

namespace core {

nlohmann::json parseJsonObject(const std::string& text, const std::string& source) {
    nlohmann::json j;
    try {
        j = nlohmann::json::parse(text);
    } catch (const nlohmann::json::parse_error& e) {
        throw FormatError(source + ": not valid JSON: " + e.what());
    }
    if (!j.is_object())
        throw FormatError(source + ": must hold a JSON object");
    return j;
}

} // namespace core
