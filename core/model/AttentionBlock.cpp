#include "core/model/AttentionBlock.h"

#include "core/base/Float16.h"
#include "core/base/FloatPool.h"

#include <algorithm>
#include <array>
#include <atomic>
#include <cstring>

namespace core {

namespace {

// Expanding a 2,048-token head is 4 M conversions; a table makes each one load.
const std::array<float, 65536>& halfTable() {
    static const auto table = [] {
        std::array<float, 65536> t{};
        for (std::size_t i = 0; i < t.size(); ++i)
            t[i] = halfToFloat(static_cast<std::uint16_t>(i));
        return t;
    }();
    return table;
}

std::size_t cells(int layers, int heads, int queries, int keys) {
    return static_cast<std::size_t>(layers) * static_cast<std::size_t>(heads) *
           static_cast<std::size_t>(queries) * static_cast<std::size_t>(keys);
}

std::atomic<std::size_t> denseLimitBytes{AttentionBlock::kDenseUpToBytes};

} // namespace

const char* toString(AttentionKind kind) {
    switch (kind) {
    case AttentionKind::Encoder:
        return "encoder";
    case AttentionKind::Decoder:
        return "decoder";
    case AttentionKind::Cross:
        return "cross";
    case AttentionKind::Pooling:
        return "pooling";
    }
    return "?";
}

std::vector<AttentionKind> transformerKinds(bool hasEncoder, bool hasDecoder) {
    std::vector<AttentionKind> kinds;
    if (hasEncoder)
        kinds.push_back(AttentionKind::Encoder);
    if (hasDecoder)
        kinds.push_back(AttentionKind::Decoder);
    if (hasEncoder && hasDecoder)
        kinds.push_back(AttentionKind::Cross);
    return kinds;
}

std::optional<AttentionKind> attentionKindNamed(const std::string& name) {
    for (const auto kind : kAttentionKinds)
        if (name == toString(kind))
            return kind;
    return std::nullopt;
}

std::size_t AttentionBlock::denseLimit() {
    return denseLimitBytes.load(std::memory_order_relaxed);
}

void AttentionBlock::setDenseLimit(std::size_t bytes) {
    denseLimitBytes.store(bytes, std::memory_order_relaxed);
}

float halfBitsToFloat(std::uint16_t h) {
    return halfTable()[h];
}

bool AttentionBlock::wantsCompact(int l, int h, int q, int k) {
    return cells(l, h, q, k) * sizeof(float) > denseLimit();
}

void AttentionBlock::resize(int l, int h, int q, int k) {
    layers = l;
    heads = h;
    queries = q;
    keys = k;
    triangular = false;
    half_.reset();
    auto zeros = FloatPool::shared().take(cells(l, h, q, k));
    std::fill(zeros.begin(), zeros.end(), 0.0f);
    data = std::move(zeros);
}

void AttentionBlock::allocate(int l, int h, int q, int k) {
    if (!wantsCompact(l, h, q, k)) {
        resize(l, h, q, k);
        return;
    }
    layers = l;
    heads = h;
    queries = q;
    keys = k;
    triangular = causal && k >= q;
    data.clear();
    half_ = std::make_shared<std::vector<std::uint16_t>>(
        static_cast<std::size_t>(l) * static_cast<std::size_t>(h) * rowOffset(0, 1, 0), std::uint16_t(0));
}

std::uint16_t* AttentionBlock::mutableHalf() {
    if (!half_)
        return nullptr;
    if (half_.use_count() > 1)
        half_ = std::make_shared<std::vector<std::uint16_t>>(*half_);
    return half_->data();
}

int AttentionBlock::storedKeys(int query) const {
    return triangular ? std::min(keys, query + keys - queries + 1) : keys;
}

std::size_t AttentionBlock::rowOffset(int layer, int head, int query) const {
    const auto q = static_cast<std::size_t>(query);
    std::size_t perHead, inHead;
    if (triangular) {
        // Row i holds d + 1 + i keys (d = keys − queries): a trapezoid of queries rows.
        const auto d1 = static_cast<std::size_t>(keys - queries + 1);
        const auto qs = static_cast<std::size_t>(queries);
        perHead = qs * d1 + qs * (qs - 1) / 2;
        inHead = q * d1 + q * (q - (q > 0 ? 1 : 0)) / 2;
    } else {
        perHead = static_cast<std::size_t>(queries) * static_cast<std::size_t>(keys);
        inHead = q * static_cast<std::size_t>(keys);
    }
    return (static_cast<std::size_t>(layer) * static_cast<std::size_t>(heads) +
            static_cast<std::size_t>(head)) *
               perHead +
           inHead;
}

float AttentionBlock::at(int layer, int head, int query, int key) const {
    if (!compact())
        return data[index(layer, head, query, key)];
    if (key >= storedKeys(query))
        return 0.0f;
    return halfBitsToFloat((*half_)[rowOffset(layer, head, query) + static_cast<std::size_t>(key)]);
}

const float* AttentionBlock::row(int layer, int head, int query, std::vector<float>& scratch) const {
    if (!compact())
        return row(layer, head, query);
    scratch.resize(static_cast<std::size_t>(keys));
    const auto& table = halfTable();
    const std::uint16_t* src = halfData() + rowOffset(layer, head, query);
    const int n = storedKeys(query);
    for (int k = 0; k < n; ++k)
        scratch[static_cast<std::size_t>(k)] = table[src[k]];
    std::fill(scratch.begin() + n, scratch.end(), 0.0f);
    return scratch.data();
}

const float* AttentionBlock::head(int layer, int h, std::vector<float>& scratch) const {
    if (!compact())
        return row(layer, h, 0);
    const auto width = static_cast<std::size_t>(keys);
    scratch.resize(static_cast<std::size_t>(queries) * width);
    const auto& table = halfTable();
    for (int q = 0; q < queries; ++q) {
        const std::uint16_t* src = halfData() + rowOffset(layer, h, q);
        float* out = scratch.data() + static_cast<std::size_t>(q) * width;
        const int n = storedKeys(q);
        for (int k = 0; k < n; ++k)
            out[k] = table[src[k]];
        std::fill(out + n, out + keys, 0.0f);
    }
    return scratch.data();
}

void AttentionBlock::setRow(int layer, int head, int query, const float* weights, int count) {
    if (!compact()) {
        std::memcpy(data.mutableData() + index(layer, head, query, 0), weights,
                    static_cast<std::size_t>(count) * sizeof(float));
        return;
    }
    std::uint16_t* out = mutableHalf() + rowOffset(layer, head, query);
    const int n = std::min(count, storedKeys(query));
    if (n > 0)
        floatsToHalves(weights, out, static_cast<std::size_t>(n));
}

std::vector<float> meanOverHeads(const AttentionBlock& block, int layer) {
    if (block.empty() || layer < 0 || layer >= block.layers || block.heads <= 0)
        return {};
    const std::size_t n = static_cast<std::size_t>(block.queries) * static_cast<std::size_t>(block.keys);
    // Accumulate in double: with many heads the float sum would drift in the last digits that the
    // detail tooltip shows.
    std::vector<double> sum(n, 0.0);
    std::vector<float> scratch;
    for (int h = 0; h < block.heads; ++h) {
        const float* m = block.head(layer, h, scratch);
        for (std::size_t i = 0; i < n; ++i)
            sum[i] += m[i];
    }
    std::vector<float> mean(n);
    for (std::size_t i = 0; i < n; ++i)
        mean[i] = static_cast<float>(sum[i] / block.heads);
    return mean;
}

} // namespace core
