#pragma once
// The keys of a Hugging Face config.json, read the way transformers reads them: a missing or null key takes
// the class's default; a present one is checked, and a bad one is a ConfigError naming the file and key.

#include "core/model/ModelConfig.h"

#include <nlohmann/json_fwd.hpp>

#include <string>

namespace core {

class HfConfigKeys {
public:
    /// j outlives this; family names the model class in messages ("GPT-2", "Llama").
    HfConfigKeys(const nlohmann::json& j, std::string source, std::string family);

    [[noreturn]] void fail(const std::string& what) const;
    bool has(const char* key) const;
    /// A whole number from 1 to limit.
    int integer(const char* key, int fallback, int limit) const;
    double number(const char* key, double fallback) const;
    std::string string(const char* key, const std::string& fallback) const;
    bool flag(const char* key, bool fallback) const;
    /// transformers' ACT2FN name: gelu (erf), gelu_new and gelu_pytorch_tanh (the tanh approximation), relu,
    /// silu and swish; another is a ConfigError naming the key.
    Activation activation(const char* key, const std::string& fallback) const;
    /// A switch whose other setting changes what the network computes in a way attnscope does not
    /// implement; `why` says how.
    void requireFlag(const char* key, bool expected, const char* why) const;
    /// The key's raw value (null when absent).
    const nlohmann::json& raw(const char* key) const;
    /// The model's name: "_name_or_path" when it names a hub id or a folder, else the config's folder, else
    /// fallback.
    std::string modelName(const std::string& fallback) const;
    const std::string& source() const { return source_; }

private:
    const nlohmann::json& j_;
    std::string source_, family_;
};

} // namespace core
