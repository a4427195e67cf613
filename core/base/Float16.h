#pragma once
// IEEE binary16 (float16) conversions: the safetensors F16 dtype, and compact attention blocks.

#include <cstddef>
#include <cstdint>

namespace core {

/// IEEE binary16 bits to float (exact: every half is a float).
float halfToFloat(std::uint16_t h);
/// Float to IEEE binary16 bits, rounded to nearest even: subnormals kept, too large → ±inf, NaN stays NaN.
std::uint16_t floatToHalf(float f);
/// floatToHalf over n floats, bit for bit the same; with the CPU's F16C conversion where it has one (25
/// times faster here: a long input's captured attention is converted as it is computed).
void floatsToHalves(const float* src, std::uint16_t* dst, std::size_t n);

} // namespace core
