#include "core/model/RopeScaling.h"

#include "core/base/ConfigFields.h"
#include "core/base/Errors.h"

#include <nlohmann/json.hpp>

#include <cmath>

namespace core {

using nlohmann::json;

const char* toString(RopeScaling::Kind k) {
    switch (k) {
    case RopeScaling::Kind::None:
        return "none";
    case RopeScaling::Kind::Linear:
        return "linear";
    case RopeScaling::Kind::Llama3:
        return "llama3";
    }
    return "?";
}

RopeScaling RopeScaling::fromJson(const json& j, const std::string& source) {
    RopeScaling s;
    if (j.is_null())
        return s;
    if (!j.is_object())
        throw ConfigError(source + ": 'rope_scaling' must be an object or null");
    // Newer configs say "rope_type", older ones "type"; "default" is the unscaled rotation.
    const char* typeKey = j.contains("rope_type") ? "rope_type" : "type";
    if (!j.contains(typeKey))
        throw ConfigError(source + ": 'rope_scaling' names no \"rope_type\"");
    const auto type = configString(j[typeKey], std::string("rope_scaling.") + typeKey, source);
    if (type == "default")
        return s;
    if (type == "linear")
        s.kind = Kind::Linear;
    else if (type == "llama3")
        s.kind = Kind::Llama3;
    else
        throw ConfigError(
            source + ": 'rope_scaling." + typeKey + "' is \"" + type +
            "\"; attnscope implements \"linear\" and \"llama3\" (\"dynamic\" and \"yarn\" change "
            "the angles with the input's length)");
    // Every number the type uses must be there, as transformers requires.
    auto number = [&](const char* key) {
        if (!j.contains(key) || j[key].is_null())
            throw ConfigError(source + ": 'rope_scaling' of type " + type + " needs '" + key + "'");
        return configNumber(j[key], std::string("rope_scaling.") + key, source);
    };
    s.factor = number("factor");
    if (!(s.factor >= 1.0 && s.factor <= 1e6))
        throw ConfigError(source + ": 'rope_scaling.factor' must be from 1 to 1e6");
    if (s.kind == Kind::Llama3) {
        s.lowFreqFactor = number("low_freq_factor");
        s.highFreqFactor = number("high_freq_factor");
        const auto original = number("original_max_position_embeddings");
        if (!(s.lowFreqFactor > 0.0 && s.highFreqFactor > s.lowFreqFactor))
            throw ConfigError(source + ": 'rope_scaling' needs 0 < low_freq_factor < high_freq_factor");
        if (!(original >= 1.0 && original <= double(1 << 24)) || original != std::floor(original))
            throw ConfigError(source + ": 'rope_scaling.original_max_position_embeddings' must be a whole "
                                       "number from 1 to 2^24");
        s.originalMaxPositions = static_cast<int>(original);
    }
    return s;
}

json RopeScaling::toJson() const {
    if (kind == Kind::None)
        return nullptr;
    json j = {{"rope_type", toString(kind)}, {"factor", factor}};
    if (kind == Kind::Llama3) {
        j["low_freq_factor"] = lowFreqFactor;
        j["high_freq_factor"] = highFreqFactor;
        j["original_max_position_embeddings"] = originalMaxPositions;
    }
    return j;
}

bool RopeScaling::operator==(const RopeScaling& o) const {
    return kind == o.kind && factor == o.factor && lowFreqFactor == o.lowFreqFactor &&
           highFreqFactor == o.highFreqFactor && originalMaxPositions == o.originalMaxPositions;
}

std::vector<double> ropeFrequencies(double base, int headSize, const RopeScaling& s) {
    std::vector<double> theta(static_cast<std::size_t>(headSize / 2));
    for (std::size_t i = 0; i < theta.size(); ++i)
        theta[i] = std::pow(base, -2.0 * static_cast<double>(i) / headSize);
    if (s.kind == RopeScaling::Kind::Linear)
        for (auto& t : theta)
            t /= s.factor;
    if (s.kind == RopeScaling::Kind::Llama3) {
        // As transformers' _compute_llama3_parameters: a pair whose wavelength is longer than the original
        // context divided by low_freq_factor turns factor times slower; shorter than it divided by
        // high_freq_factor, as before; in between, a blend by where the wavelength lies.
        const double original = s.originalMaxPositions;
        const double lowWavelen = original / s.lowFreqFactor, highWavelen = original / s.highFreqFactor;
        for (auto& t : theta) {
            const double wavelen = 2.0 * M_PI / t;
            if (wavelen > lowWavelen) {
                t /= s.factor;
            } else if (wavelen >= highWavelen) {
                const double smooth =
                    (original / wavelen - s.lowFreqFactor) / (s.highFreqFactor - s.lowFreqFactor);
                t = (1.0 - smooth) * t / s.factor + smooth * t;
            }
        }
    }
    return theta;
}

} // namespace core
