#include "core/base/Float16.h"

#include <cstring>

#if defined(__x86_64__)
#include <immintrin.h>
#endif

namespace core {

float halfToFloat(uint16_t h) {
    const uint32_t sign = static_cast<uint32_t>(h & 0x8000u) << 16;
    uint32_t exp = (h >> 10) & 0x1Fu;
    uint32_t mant = h & 0x3FFu;
    uint32_t bits;
    if (exp == 0) {
        if (mant == 0) {
            bits = sign;
        } else { // subnormal: normalise
            exp = 127 - 15 + 1;
            while ((mant & 0x400u) == 0) {
                mant <<= 1;
                --exp;
            }
            mant &= 0x3FFu;
            bits = sign | (exp << 23) | (mant << 13);
        }
    } else if (exp == 0x1F) {
        bits = sign | 0x7F800000u | (mant << 13);
    } else {
        bits = sign | ((exp + 127 - 15) << 23) | (mant << 13);
    }
    float f;
    std::memcpy(&f, &bits, sizeof f);
    return f;
}

uint16_t floatToHalf(float f) {
    uint32_t x;
    std::memcpy(&x, &f, sizeof x);
    const auto sign = static_cast<uint16_t>((x >> 16) & 0x8000u);
    x &= 0x7FFFFFFFu;
    if (x >= 0x7F800000u) // inf, or NaN kept quiet with the top of its payload
        return static_cast<uint16_t>(sign | (x == 0x7F800000u ? 0x7C00u : 0x7E00u | ((x >> 13) & 0x3FFu)));
    if (x >= 0x47800000u) // 2^16 and up: beyond the largest half even after rounding
        return static_cast<uint16_t>(sign | 0x7C00u);
    // Round half to even on the bits dropped from a significand: above the midpoint, or on it with an odd
    // last kept bit, round up. A carry out of the mantissa lands in the exponent, which is the right
    // encoding (a subnormal becomes the smallest normal, 65520 and up becomes inf).
    auto roundShift = [](uint32_t significand, int shift) {
        const uint32_t kept = significand >> shift;
        const uint32_t rest = significand & ((1u << shift) - 1);
        const uint32_t midpoint = 1u << (shift - 1);
        return kept + ((rest > midpoint || (rest == midpoint && (kept & 1u))) ? 1u : 0u);
    };
    const auto e = static_cast<int>(x >> 23);
    if (e >= 127 - 14) // normal half: rebias the exponent, keep 10 of the 23 mantissa bits
        return static_cast<uint16_t>(sign | roundShift(x - ((127u - 15u) << 23), 13));
    if (e < 127 - 25) // below half the smallest subnormal (2^-25): rounds to zero
        return sign;
    // Subnormal half: the value in units of 2^-24 is the 24-bit significand shifted right by 126 - e.
    return static_cast<uint16_t>(sign | roundShift((x & 0x7FFFFFu) | 0x800000u, 126 - e));
}

namespace {

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#define ATTNSCOPE_F16C 1
// Eight at a time; the instruction rounds to nearest even as floatToHalf does. Compiled for F16C alone and
// called only where the CPU has it, so the program still runs on x86-64 CPUs without it.
__attribute__((target("avx,f16c"))) void halvesF16c(const float* src, uint16_t* dst, std::size_t n) {
    std::size_t i = 0;
    for (; i + 8 <= n; i += 8) {
        const __m256 v = _mm256_loadu_ps(src + i);
        _mm_storeu_si128(reinterpret_cast<__m128i*>(dst + i), _mm256_cvtps_ph(v, _MM_FROUND_TO_NEAREST_INT));
    }
    for (; i < n; ++i)
        dst[i] = floatToHalf(src[i]);
}

bool cpuHasF16c() {
    static const bool has = [] {
        __builtin_cpu_init();
        return __builtin_cpu_supports("avx") && __builtin_cpu_supports("f16c");
    }();
    return has;
}
#endif

} // namespace

void floatsToHalves(const float* src, uint16_t* dst, std::size_t n) {
#ifdef ATTNSCOPE_F16C
    if (cpuHasF16c()) {
        halvesF16c(src, dst, n);
        return;
    }
#endif
    for (std::size_t i = 0; i < n; ++i)
        dst[i] = floatToHalf(src[i]);
}

} // namespace core
