#pragma once
// Typed fields of a JSON settings file (config.json, a recipe), each read with one wording of what is wrong:
// a ConfigError naming the file and the field.

#include <nlohmann/json_fwd.hpp>

#include <string>
#include <vector>

namespace core {

/// A whole number that fits int.
int configInt(const nlohmann::json& v, const std::string& key, const std::string& source);
double configNumber(const nlohmann::json& v, const std::string& key, const std::string& source);
bool configBool(const nlohmann::json& v, const std::string& key, const std::string& source);
std::string configString(const nlohmann::json& v, const std::string& key, const std::string& source);
/// A list of strings.
std::vector<std::string> configStrings(const nlohmann::json& v, const std::string& key,
                                       const std::string& source);

} // namespace core
