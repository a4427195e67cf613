#pragma once
// `attnscope bench --only products`: the matrix products one layer makes, alone, at the shapes a keystroke
// (64 rows), a decode step (one row) and a long input (1,024 rows) multiply: through the BLAS LibTorch uses
// (OpenBLAS's sgemm_, which packs the weight on every call; for one row sgemv_, as LibTorch's addmv) and
// through the weight packed once for oneDNN (core::PackedWeights, what the models run on). The same random
// numbers on both sides.

#include "app/bench/BenchMeasure.h"

#include <string>
#include <vector>

struct ProductCell {
    int rows = 0, in = 0, out = 0;               ///< y (rows × out) = x (rows × in) · Wᵀ
    Stat blas;                                   ///< empty (runs 0) when the process's BLAS has no sgemm_
    Stat packed;                                 ///< empty when this build cannot pack
    double blasGflops = 0.0, packedGflops = 0.0; ///< at the medians
};

struct ProductsReport {
    Plan plan;
    std::string packedWith; ///< PackedWeights::describe()
    std::vector<ProductCell> cells;
};

ProductsReport measureProducts(const Plan& plan);
void printText(const ProductsReport& r);
nlohmann::ordered_json toJson(const ProductsReport& r);
