#include "core/base/ConfigFields.h"

#include "core/base/Errors.h"

#include <nlohmann/json.hpp>

#include <cstdint>

namespace core {

int configInt(const nlohmann::json& v, const std::string& key, const std::string& source) {
    if (!v.is_number_integer())
        throw ConfigError(source + ": field '" + key + "' must be an integer");
    const auto n = v.get<int64_t>();
    if (n < INT32_MIN || n > INT32_MAX)
        throw ConfigError(source + ": field '" + key + "' is out of range");
    return static_cast<int>(n);
}

double configNumber(const nlohmann::json& v, const std::string& key, const std::string& source) {
    if (!v.is_number())
        throw ConfigError(source + ": field '" + key + "' must be a number");
    return v.get<double>();
}

bool configBool(const nlohmann::json& v, const std::string& key, const std::string& source) {
    if (!v.is_boolean())
        throw ConfigError(source + ": field '" + key + "' must be true or false");
    return v.get<bool>();
}

std::string configString(const nlohmann::json& v, const std::string& key, const std::string& source) {
    if (!v.is_string())
        throw ConfigError(source + ": field '" + key + "' must be a string");
    return v.get<std::string>();
}

std::vector<std::string> configStrings(const nlohmann::json& v, const std::string& key,
                                       const std::string& source) {
    if (!v.is_array())
        throw ConfigError(source + ": field '" + key + "' must be a list of strings");
    std::vector<std::string> out;
    for (const auto& s : v)
        out.push_back(configString(s, key, source));
    return out;
}

} // namespace core
