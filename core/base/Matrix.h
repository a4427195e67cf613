#pragma once

#include <cstddef>
#include <vector>

namespace core {

/// A rows × cols block of floats, row-major: how core hands a 2-D slice of a computation to views and
/// writers without a torch type.
struct Matrix {
    int rows = 0;
    int cols = 0;
    std::vector<float> data;

    Matrix() = default;
    Matrix(int r, int c)
        : rows(r), cols(c), data(static_cast<std::size_t>(r) * static_cast<std::size_t>(c)) {}

    bool empty() const { return data.empty(); }
    const float* row(int r) const {
        return data.data() + static_cast<std::size_t>(r) * static_cast<std::size_t>(cols);
    }
    float at(int r, int c) const { return row(r)[c]; }
};

} // namespace core
