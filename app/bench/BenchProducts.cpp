#include "app/bench/BenchProducts.h"

#include "core/base/Blas.h"
#include "core/base/PackedWeights.h"

#include <cstdio>
#include <random>

namespace {

struct Shape {
    int rows, in, out;
};

// The built-in model's and the medium shape's products (q/k/v fused, feed-forward in and out), the output
// layer's one row, and a long input's.
constexpr Shape kShapes[] = {{64, 256, 768},  {64, 256, 1024},  {64, 1024, 256},  {64, 512, 1536},
                             {64, 512, 2048}, {64, 2048, 512},  {1, 256, 1024},   {1, 512, 2048},
                             {1, 256, 8000},  {1024, 256, 256}, {1024, 512, 2048}};

std::vector<float> randomFloats(std::size_t n, unsigned seed) {
    std::mt19937 gen(seed);
    std::normal_distribution<float> normal;
    std::vector<float> v(n);
    for (auto& x : v)
        x = normal(gen);
    return v;
}

double gflops(const Shape& s, double ms) {
    return ms > 0.0 ? 2.0 * s.rows * s.in * s.out / (ms * 1e6) : 0.0;
}

ProductCell measureShape(const Shape& s, const Plan& plan) {
    ProductCell c;
    c.rows = s.rows;
    c.in = s.in;
    c.out = s.out;
    const auto x = randomFloats(static_cast<std::size_t>(s.rows) * s.in, 1);
    const auto w = randomFloats(static_cast<std::size_t>(s.out) * s.in, 2);
    std::vector<float> y(static_cast<std::size_t>(s.rows) * s.out);
    if (core::blas::available()) {
        const auto runs = repeat(plan, [&] {
            const auto t0 = BenchClock::now();
            if (s.rows == 1) // what LibTorch's path takes for one row: addmv, the BLAS's sgemv_
                core::blas::gemv(false, s.out, s.in, 1.0f, w.data(), s.in, x.data(), 0.0f, y.data());
            else
                core::blas::gemm(false, true, s.rows, s.out, s.in, 1.0f, x.data(), s.in, w.data(), s.in, 0.0f,
                                 y.data(), s.out);
            return msSince(t0);
        });
        c.blas = summarize(runs);
        c.blasGflops = gflops(s, c.blas.median);
    }
    if (core::PackedWeights::enabled()) {
        const core::PackedWeights packed(w.data(), s.out, s.in, nullptr);
        const auto runs = repeat(plan, [&] {
            const auto t0 = BenchClock::now();
            packed.apply(x.data(), s.rows, y.data());
            return msSince(t0);
        });
        c.packed = summarize(runs);
        c.packedGflops = gflops(s, c.packed.median);
    }
    return c;
}

} // namespace

ProductsReport measureProducts(const Plan& plan) {
    ProductsReport r;
    r.plan = plan;
    r.packedWith = core::PackedWeights::describe();
    // The first products of a process start the BLAS's and OpenMP's threads and allocate their buffers: one
    // untimed pass over every shape keeps that out of the first shape's figures (0.60 against 0.19 ms).
    for (const auto& s : kShapes)
        measureShape(s, Plan{1, 0});
    for (const auto& s : kShapes)
        r.cells.push_back(measureShape(s, plan));
    return r;
}

void printText(const ProductsReport& r) {
    std::printf("\n== Matrix products alone: the BLAS (sgemm_; sgemv_ for one row) against the weight packed "
                "once (%s)\n",
                r.packedWith.c_str());
    std::printf("%-20s %12s %8s %12s %8s %8s\n", "rows x in x out", "BLAS ms", "GFLOP/s", "packed ms",
                "GFLOP/s", "ratio");
    for (const auto& c : r.cells) {
        const auto shape =
            std::to_string(c.rows) + " x " + std::to_string(c.in) + " x " + std::to_string(c.out);
        const auto ms = [](const Stat& s) { return s.runs > 0 ? number(s.median) : std::string("-"); };
        const auto ratio = c.blas.runs > 0 && c.packed.runs > 0
                               ? number(c.blas.median / c.packed.median) + "x"
                               : std::string("-");
        std::printf("%-20s %12s %8.0f %12s %8.0f %8s\n", shape.c_str(), ms(c.blas).c_str(), c.blasGflops,
                    ms(c.packed).c_str(), c.packedGflops, ratio.c_str());
    }
    std::fflush(stdout);
}

nlohmann::ordered_json toJson(const ProductsReport& r) {
    nlohmann::ordered_json j;
    j["packed_with"] = r.packedWith;
    j["cells"] = nlohmann::ordered_json::array();
    const auto stat = [](const Stat& s) {
        return s.runs > 0 ? nlohmann::ordered_json{{"median", s.median}, {"min", s.min}, {"max", s.max}}
                          : nlohmann::ordered_json();
    };
    for (const auto& c : r.cells)
        j["cells"].push_back({{"rows", c.rows},
                              {"in", c.in},
                              {"out", c.out},
                              {"sgemm_ms", stat(c.blas)},
                              {"packed_ms", stat(c.packed)},
                              {"sgemm_gflops", c.blasGflops},
                              {"packed_gflops", c.packedGflops}});
    return j;
}
