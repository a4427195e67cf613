#pragma once
// Shapes: B batch, H heads (or 1), T rows kept, D row width.

#include <torch/types.h>

#include <algorithm>
#include <cstdint>

namespace core::nn {

/// Rows kept along dim 2 of a preallocated (B, H, capacity, D) buffer, so a decoding step writes in place
/// instead of concatenating (a cat copies the whole prefix every step). Rewinding is just lowering
/// `length`. The one growth rule of the decode caches: the KV cache's keys and values, and the residual
/// rows the Inside view reads.
struct RowStore {
    torch::Tensor buffer; // (B, H, capacity, D)
    int64_t length = 0;

    int64_t capacity() const { return buffer.defined() ? buffer.size(2) : 0; }
    bool empty() const { return length == 0; }

    /// Appends (B, H, n, D) rows, growing the buffer geometrically when full.
    void append(const torch::Tensor& rows) {
        const int64_t n = rows.size(2);
        if (length + n > capacity()) {
            const int64_t cap = std::max<int64_t>({16, 2 * capacity(), length + n});
            auto grown = torch::empty({rows.size(0), rows.size(1), cap, rows.size(3)}, rows.options());
            if (length > 0)
                grown.narrow(2, 0, length).copy_(buffer.narrow(2, 0, length));
            buffer = std::move(grown);
        }
        buffer.narrow(2, length, n).copy_(rows);
        length += n;
    }
    torch::Tensor rows() const { return buffer.narrow(2, 0, length); } // (B, H, length, D)
    /// Rows computed elsewhere and fixed from now on (cross-attention's projected encoder memory).
    void set(torch::Tensor all) {
        buffer = std::move(all);
        length = buffer.size(2);
    }
    void truncate(int64_t n) { length = std::min(length, std::max<int64_t>(0, n)); }
};

} // namespace core::nn
