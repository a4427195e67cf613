#pragma once
// Rotary positions as the Llama family configures them: which pairs of a head's dimensions turn together,
// and how a long-context model stretches the angles ("rope_scaling" in a Hugging Face config.json).

#include <nlohmann/json_fwd.hpp>

#include <string>
#include <vector>

namespace core {

/// Which dimensions of a query or key turn together by one angle.
enum class RopeStyle {
    Interleaved, ///< (2i, 2i+1), as the original paper writes it and attnscope's own models train
    Halves       ///< (i, i + hs/2): Hugging Face's rotate_half (Llama, Mistral, Qwen2, GPT-NeoX)
};

/// "rope_scaling": null, or {"rope_type" (or "type"): "linear" | "llama3", "factor", …}.
struct RopeScaling {
    enum class Kind {
        None,   ///< θ_i = base^(−2i/hs)
        Linear, ///< every θ_i divided by factor (positions interpolated)
        Llama3  ///< Llama 3.1's: long wavelengths divided by factor, short ones kept, a smooth blend between
    };
    Kind kind = Kind::None;
    double factor = 1.0;             // how far the context was stretched
    double lowFreqFactor = 1.0;      // llama3: wavelengths past original/low are divided by factor
    double highFreqFactor = 4.0;     // llama3: wavelengths under original/high are kept
    int originalMaxPositions = 8192; // llama3: the context the model was first trained at

    /// Parses a rope_scaling object (null gives None); `source` names the file in messages. Throws
    /// ConfigError naming the key for a type attnscope does not implement ("dynamic", "yarn", …) or a bad
    /// value.
    static RopeScaling fromJson(const nlohmann::json& j, const std::string& source);
    /// The object fromJson reads back; null for None.
    nlohmann::json toJson() const;
    bool operator==(const RopeScaling& o) const;
};

const char* toString(RopeScaling::Kind);

/// The hs/2 angular frequencies θ_i (radians per position) of one head's dimension pairs, scaled.
std::vector<double> ropeFrequencies(double base, int headSize, const RopeScaling& scaling);

} // namespace core
