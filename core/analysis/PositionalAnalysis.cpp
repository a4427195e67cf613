#include "core/analysis/PositionalAnalysis.h"

#include <algorithm>
#include <cmath>
#include <cstddef>

namespace core {

namespace {

int rowsOf(const std::vector<float>& table, int dims) {
    return dims > 0 ? static_cast<int>(table.size() / static_cast<std::size_t>(dims)) : 0;
}

int clampPositions(const std::vector<float>& table, int dims, int positions) {
    return std::clamp(positions, 0, rowsOf(table, dims));
}

double at(const std::vector<float>& table, int dims, int pos, int dim) {
    return table[static_cast<std::size_t>(pos) * static_cast<std::size_t>(dims) +
                 static_cast<std::size_t>(dim)];
}

} // namespace

double sinusoidalFrequency(int pair, int dModel) {
    // The same expression the seed's div_term uses, so the angle matches the table to the last bit
    // the float table can hold.
    return std::exp(-(2.0 * pair) * std::log(10000.0) / dModel);
}

double sinusoidalPeriod(int pair, int dModel) {
    return 2.0 * 3.14159265358979323846 / sinusoidalFrequency(pair, dModel);
}

std::vector<int> smoothSinusoidalDims(int dModel, int positions) {
    const int pairs = dModel / 2;
    if (pairs < 1)
        return {};
    int fast = pairs - 1;
    for (int i = 0; i < pairs; ++i)
        if (sinusoidalPeriod(i, dModel) >= 2 * kSmoothSamplesPerPeriod) {
            fast = i;
            break;
        }
    int slow = pairs - 1;
    for (int i = fast + 1; i < pairs; ++i)
        if (sinusoidalPeriod(i, dModel) >= positions / 2.0) {
            slow = i;
            break;
        }
    if (slow == fast)
        return {2 * fast, 2 * fast + 1};
    return {2 * fast, 2 * fast + 1, 2 * slow, 2 * slow + 1};
}

void rotatePair(double angle, double& first, double& second) {
    const double c = std::cos(angle), s = std::sin(angle);
    const double a = c * first + s * second;
    const double b = -s * first + c * second;
    first = a;
    second = b;
}

double maxAbs(const std::vector<float>& table, int dims, int positions) {
    const int n = clampPositions(table, dims, positions);
    double m = 0.0;
    for (std::size_t j = 0; j < static_cast<std::size_t>(n) * static_cast<std::size_t>(dims); ++j)
        m = std::max(m, static_cast<double>(std::abs(table[j])));
    return m;
}

double pairRmsRadius(const std::vector<float>& table, int dims, int positions, int pair) {
    const int n = clampPositions(table, dims, positions);
    if (n == 0 || pair < 0 || 2 * pair + 1 >= dims)
        return 0.0;
    double sum = 0.0;
    for (int pos = 0; pos < n; ++pos) {
        const double x = at(table, dims, pos, 2 * pair), y = at(table, dims, pos, 2 * pair + 1);
        sum += x * x + y * y;
    }
    return std::sqrt(sum / n);
}

std::vector<double> positionSimilarity(const std::vector<float>& table, int dims, int positions,
                                       SimilarityKind kind) {
    const int n = clampPositions(table, dims, positions);
    std::vector<double> out(static_cast<std::size_t>(n) * static_cast<std::size_t>(n), 0.0);
    for (int a = 0; a < n; ++a)
        for (int b = a; b < n; ++b) {
            double dot = 0.0;
            for (int d = 0; d < dims; ++d)
                dot += at(table, dims, a, d) * at(table, dims, b, d);
            out[static_cast<std::size_t>(a) * n + b] = dot;
            out[static_cast<std::size_t>(b) * n + a] = dot;
        }
    if (kind == SimilarityKind::Cosine) {
        std::vector<double> norm(static_cast<std::size_t>(n));
        for (int a = 0; a < n; ++a)
            norm[a] = std::sqrt(out[static_cast<std::size_t>(a) * n + a]);
        for (int a = 0; a < n; ++a)
            for (int b = 0; b < n; ++b) {
                auto& v = out[static_cast<std::size_t>(a) * n + b];
                const double den = norm[a] * norm[b];
                // A zero row has no direction; 0 keeps NaN out of the colour map.
                v = den > 0.0 ? v / den : 0.0;
            }
    }
    return out;
}

RotationCheck rotationError(const std::vector<float>& table, int dims, int positions, int pair, int offset,
                            double angle) {
    RotationCheck r;
    const int n = clampPositions(table, dims, positions);
    if (offset < 0 || pair < 0 || 2 * pair + 1 >= dims)
        return r;
    for (int pos = 0; pos + offset < n; ++pos) {
        double x = at(table, dims, pos, 2 * pair), y = at(table, dims, pos, 2 * pair + 1);
        rotatePair(angle, x, y);
        const double e = std::hypot(at(table, dims, pos + offset, 2 * pair) - x,
                                    at(table, dims, pos + offset, 2 * pair + 1) - y);
        if (r.worstPosition < 0 || e > r.maxError) {
            r.maxError = e;
            r.worstPosition = pos;
        }
        ++r.comparisons;
    }
    return r;
}

double bestRotationAngle(const std::vector<float>& table, int dims, int positions, int pair, int offset) {
    const int n = clampPositions(table, dims, positions);
    if (offset < 0 || pair < 0 || 2 * pair + 1 >= dims)
        return 0.0;
    // Σ v·R(φ)u = cos φ·Σ(u·v) + sin φ·Σ(u₁v₀ − u₀v₁) for u = PE(pos), v = PE(pos+k); its maximum is at
    // φ = atan2 of the two sums, which is also where Σ|v − R(φ)u|² is smallest.
    double dot = 0.0, cross = 0.0;
    for (int pos = 0; pos + offset < n; ++pos) {
        const double u0 = at(table, dims, pos, 2 * pair), u1 = at(table, dims, pos, 2 * pair + 1);
        const double v0 = at(table, dims, pos + offset, 2 * pair),
                     v1 = at(table, dims, pos + offset, 2 * pair + 1);
        dot += u0 * v0 + u1 * v1;
        cross += u1 * v0 - u0 * v1;
    }
    return std::atan2(cross, dot);
}

} // namespace core
