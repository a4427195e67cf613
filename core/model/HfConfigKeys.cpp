#include "core/model/HfConfigKeys.h"

#include "core/base/Errors.h"

#include <nlohmann/json.hpp>

#include <filesystem>

namespace core {

using nlohmann::json;

HfConfigKeys::HfConfigKeys(const json& j, std::string source, std::string family)
    : j_(j), source_(std::move(source)), family_(std::move(family)) {}

void HfConfigKeys::fail(const std::string& what) const {
    throw ConfigError(source_ + ": " + what);
}

bool HfConfigKeys::has(const char* key) const {
    return j_.contains(key) && !j_[key].is_null();
}

const json& HfConfigKeys::raw(const char* key) const {
    static const json null;
    return j_.contains(key) ? j_[key] : null;
}

int HfConfigKeys::integer(const char* key, int fallback, int limit) const {
    if (!has(key))
        return fallback;
    const auto& v = j_[key];
    if (!v.is_number_integer())
        fail(std::string("'") + key + "' must be an integer, got " + v.dump());
    const auto n = v.get<int64_t>();
    if (n < 1 || n > limit)
        fail(std::string("'") + key + "' is " + std::to_string(n) + "; expected 1.." + std::to_string(limit));
    return static_cast<int>(n);
}

double HfConfigKeys::number(const char* key, double fallback) const {
    if (!has(key))
        return fallback;
    if (!j_[key].is_number())
        fail(std::string("'") + key + "' must be a number, got " + j_[key].dump());
    return j_[key].get<double>();
}

std::string HfConfigKeys::string(const char* key, const std::string& fallback) const {
    if (!has(key))
        return fallback;
    if (!j_[key].is_string())
        fail(std::string("'") + key + "' must be a string, got " + j_[key].dump());
    return j_[key].get<std::string>();
}

bool HfConfigKeys::flag(const char* key, bool fallback) const {
    if (!has(key))
        return fallback;
    if (!j_[key].is_boolean())
        fail(std::string("'") + key + "' must be true or false, got " + j_[key].dump());
    return j_[key].get<bool>();
}

Activation HfConfigKeys::activation(const char* key, const std::string& fallback) const {
    const auto name = string(key, fallback);
    if (name == "gelu_new" || name == "gelu_pytorch_tanh")
        return Activation::GeluTanh;
    if (name == "gelu")
        return Activation::Gelu;
    if (name == "relu")
        return Activation::Relu;
    if (name == "silu" || name == "swish")
        return Activation::Silu;
    fail(std::string("'") + key + "' is \"" + name +
         "\"; supported are gelu, gelu_new and gelu_pytorch_tanh (the tanh approximation), relu, silu and "
         "swish");
}

void HfConfigKeys::requireFlag(const char* key, bool expected, const char* why) const {
    if (flag(key, expected) != expected)
        fail(std::string("'") + key + "': " + (expected ? "false" : "true") + " (" + why +
             ") is not supported; attnscope implements " + family_ + " with '" + key +
             "': " + (expected ? "true" : "false"));
}

// "_name_or_path" is a hub id ("openai-community/gpt2") or the local path the model was saved from; the
// directory may be a hub cache snapshot named by a commit hash, so the recorded name comes first.
std::string HfConfigKeys::modelName(const std::string& fallback) const {
    namespace fs = std::filesystem;
    const auto nameOrPath = string("_name_or_path", "");
    if (!nameOrPath.empty()) {
        const bool local = nameOrPath.front() == '/' || nameOrPath.front() == '.' ||
                           nameOrPath.front() == '~' || nameOrPath.find('\\') != std::string::npos;
        auto path = fs::path(nameOrPath).lexically_normal();
        if (path.filename().empty()) // a trailing slash
            path = path.parent_path();
        const auto last = path.filename().string();
        if (!local)
            return nameOrPath;
        if (!last.empty() && last != "." && last != "..")
            return last;
    }
    const auto dir = fs::path(source_).parent_path().lexically_normal().filename().string();
    return dir.empty() || dir == "." || dir == ".." ? fallback : dir;
}

} // namespace core
