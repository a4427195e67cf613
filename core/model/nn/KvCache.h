#pragma once
// Shapes: B batch, H heads, T time, hs head size, C channels.

#include "core/model/nn/RowStore.h"

namespace core::nn {

/// Keys and values of one attention block. With keepInputs it also keeps the residual rows that entered
/// the block's sublayer (before its norm), one per query fed: what the Inside view needs to recompute a
/// query from the very state the decode used, with the keys and values read from here.
struct KvCache {
    RowStore k;      // (B, H, Tk, hs)
    RowStore v;      // (B, H, Tk, hs)
    RowStore inputs; // (B, 1, Tq, C), only with keepInputs
    bool keepInputs = false;

    int64_t length() const { return k.length; }
    bool empty() const { return k.empty(); }

    /// Appends (B, H, Tn, hs) keys and values.
    void append(const torch::Tensor& kNew, const torch::Tensor& vNew) {
        k.append(kNew);
        v.append(vNew);
    }
    torch::Tensor keys() const { return k.rows(); }   // (B, H, length, hs)
    torch::Tensor values() const { return v.rows(); } // (B, H, length, hs)
    /// Fixed keys and values (cross-attention over the encoder memory), computed once.
    void set(torch::Tensor kAll, torch::Tensor vAll) {
        k.set(std::move(kAll));
        v.set(std::move(vAll));
    }
    /// Keeps (B, T, C) residual rows entering the sublayer, when keepInputs is set.
    void keepInput(const torch::Tensor& residual) {
        if (keepInputs)
            inputs.append(residual.unsqueeze(1)); // (B, 1, T, C)
    }
};

} // namespace core::nn
