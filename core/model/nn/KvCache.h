#pragma once
// Shapes: B batch, H heads, T time, hs head size.

#include <torch/types.h>

namespace core::nn {

/// Keys and values of one attention block, preallocated so a decoding step writes in place instead of
/// concatenating (a cat copies the whole prefix every step). Rewinding is just lowering `length`.
struct KvCache {
    torch::Tensor k; // (B, H, capacity, hs)
    torch::Tensor v; // (B, H, capacity, hs)
    int64_t length = 0;

    int64_t capacity() const { return k.defined() ? k.size(2) : 0; }
    bool empty() const { return length == 0; }

    /// Appends (B, H, Tn, hs) keys and values, growing the buffers geometrically when full.
    void append(const torch::Tensor& kNew, const torch::Tensor& vNew) {
        const int64_t tn = kNew.size(2);
        if (length + tn > capacity()) {
            const int64_t cap = std::max<int64_t>({16, 2 * capacity(), length + tn});
            auto grow = [&](const torch::Tensor& old, const torch::Tensor& like) {
                auto t = torch::empty({like.size(0), like.size(1), cap, like.size(3)}, like.options());
                if (length > 0)
                    t.narrow(2, 0, length).copy_(old.narrow(2, 0, length));
                return t;
            };
            k = grow(k, kNew);
            v = grow(v, vNew);
        }
        k.narrow(2, length, tn).copy_(kNew);
        v.narrow(2, length, tn).copy_(vNew);
        length += tn;
    }
    torch::Tensor keys() const { return k.narrow(2, 0, length); }   // (B, H, length, hs)
    torch::Tensor values() const { return v.narrow(2, 0, length); } // (B, H, length, hs)
    /// Fixed keys and values (cross-attention over the encoder memory), computed once.
    void set(torch::Tensor kAll, torch::Tensor vAll) {
        k = std::move(kAll);
        v = std::move(vAll);
        length = k.size(2);
    }
};

} // namespace core::nn
