#include "core/model/nn/PackedLinear.h"

#include "core/base/PackedWeights.h"

#include <ATen/core/grad_mode.h>
#include <torch/torch.h>

#include <map>
#include <memory>
#include <mutex>
#include <tuple>

namespace core::nn {

namespace {

// Packed copies double the memory of the weights they copy. Up to this much is packed (a model of the medium
// shape takes 193 MB, GPT-2 small 494 MB); the weights met after that multiply through LibTorch, so a 2 GB
// model costs at most this much more.
constexpr int64_t kDefaultBudget = int64_t(512) << 20;

// Long inputs' products with large weights run slower packed than through OpenBLAS in the model, though not
// alone: GPT-2 small's shape at 1,024 tokens analysed in 2,924 ms with every product packed, 1,789 ms with
// only those of up to 256 rows, 2,275 ms with none; the built-in model's shape in 109, 153 and 172 ms, the
// medium shape's in 560, 595 and 641 ms. So a product of more rows is packed only while its multiply-adds
// stay within 2^30 (the medium shape's largest at 1,024 rows; GPT-2's feed-forward there takes 2.4 · 2^30).
constexpr int64_t kPackedRowsUpTo = 256;
constexpr int64_t kPackedWorkUpTo = int64_t(1) << 30;

// Identified by where the weight's and bias's numbers lie and the shape; an entry is still the same weight
// while the storage it was packed from lives (a weak reference: a freed storage's address can come back
// for other numbers) and its version has not moved.
struct Key {
    const void* w;
    int64_t n, k;
    const void* b;
    bool operator<(const Key& o) const { return std::tie(w, n, k, b) < std::tie(o.w, o.n, o.k, o.b); }
};

struct Entry {
    c10::weak_intrusive_ptr<c10::StorageImpl> weightStorage;
    const c10::StorageImpl* storage;
    int64_t version;
    std::shared_ptr<const PackedWeights> packed;
};

struct Registry {
    std::mutex mutex;
    std::map<Key, Entry> entries;
    int64_t bytes = 0; // held by entries, live or not yet swept
    int64_t budget = kDefaultBudget;
};

Registry& registry() {
    static Registry r;
    return r;
}

bool takes(const torch::Tensor& x, const torch::Tensor& w, const torch::Tensor& b) {
    const auto f32 = [](const torch::Tensor& t) {
        return t.device().is_cpu() && t.scalar_type() == torch::kFloat;
    };
    if (!f32(x) || !f32(w) || w.dim() != 2 || x.dim() < 1 || x.size(-1) != w.size(1) || x.numel() == 0)
        return false;
    if (w.stride(1) != 1 || w.stride(0) != w.size(1) || w.is_mkldnn() || x.is_mkldnn())
        return false;
    return !b.defined() || (f32(b) && b.dim() == 1 && b.size(0) == w.size(0) && b.is_contiguous());
}

std::shared_ptr<const PackedWeights> packedFor(const torch::Tensor& w, const torch::Tensor& b,
                                               int64_t version) {
    const Key key{w.data_ptr(), w.size(0), w.size(1), b.defined() ? b.data_ptr() : nullptr};
    auto& r = registry();
    std::lock_guard<std::mutex> lock(r.mutex);
    const auto* storage = w.storage().unsafeGetStorageImpl();
    const auto found = r.entries.find(key);
    if (found != r.entries.end() && !found->second.weightStorage.expired() &&
        found->second.storage == storage && found->second.version == version)
        return found->second.packed;
    // A miss: drop what belongs to freed storage or was written since, then pack (one pass over the weight,
    // like one GEMM's own packing) if the budget allows.
    if (found != r.entries.end()) {
        r.bytes -= static_cast<int64_t>(found->second.packed->bytes());
        r.entries.erase(found);
    }
    for (auto it = r.entries.begin(); it != r.entries.end();) {
        if (!it->second.weightStorage.expired()) {
            ++it;
            continue;
        }
        r.bytes -= static_cast<int64_t>(it->second.packed->bytes());
        it = r.entries.erase(it);
    }
    const auto size = static_cast<int64_t>((w.numel() + (b.defined() ? b.numel() : 0)) * sizeof(float));
    if (r.bytes + size > r.budget)
        return {};
    auto packed = std::make_shared<const PackedWeights>(w.data_ptr<float>(), w.size(0), w.size(1),
                                                        b.defined() ? b.data_ptr<float>() : nullptr);
    r.entries.insert_or_assign(key, Entry{w.storage().getWeakStorageImpl(), storage, version, packed});
    r.bytes += static_cast<int64_t>(packed->bytes());
    return packed;
}

} // namespace

int64_t versionOf(const torch::Tensor& t) {
    return t.defined() && !t.is_inference() ? static_cast<int64_t>(t._version()) : 0;
}

torch::Tensor packedLinear(const torch::Tensor& x, const torch::Tensor& w, const torch::Tensor& b,
                           int64_t version) {
    if (!PackedWeights::enabled() || at::GradMode::is_enabled() || !takes(x, w, b))
        return {};
    const auto rows = x.numel() / w.size(1);
    if (rows > kPackedRowsUpTo && rows * w.size(0) * w.size(1) > kPackedWorkUpTo)
        return {};
    std::shared_ptr<const PackedWeights> packed;
    try {
        packed = packedFor(w, b, version);
    } catch (const std::exception&) {
        return {}; // oneDNN refused this shape: LibTorch multiplies it
    }
    if (!packed)
        return {}; // over the budget
    const auto in = x.contiguous();
    auto shape = x.sizes().vec();
    shape.back() = w.size(0);
    auto y = torch::empty(shape, x.options()); // (..., F)
    packed->apply(in.data_ptr<float>(), in.numel() / w.size(1), y.data_ptr<float>());
    return y;
}

void setPackingBudget(int64_t bytes) {
    auto& r = registry();
    std::lock_guard<std::mutex> lock(r.mutex);
    r.budget = bytes < 0 ? kDefaultBudget : bytes;
}

PackedStats packedStats() {
    auto& r = registry();
    std::lock_guard<std::mutex> lock(r.mutex);
    PackedStats s;
    s.budget = r.budget;
    for (const auto& [key, e] : r.entries)
        if (!e.weightStorage.expired()) {
            ++s.weights;
            s.bytes += static_cast<int64_t>(e.packed->bytes());
        }
    return s;
}

} // namespace core::nn
