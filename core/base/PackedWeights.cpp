#include "core/base/PackedWeights.h"

#include <atomic>
#include <cstdlib>
#include <cstring>
#include <stdexcept>
#include <string>

#ifdef ATTNSCOPE_HAVE_DNNL
#include <dnnl.hpp>

#include <dlfcn.h>

#include <map>
#include <mutex>
#include <utility>
#include <vector>
#endif

namespace core {

namespace {

bool switchedOffByEnvironment() {
    const char* v = std::getenv("ATTNSCOPE_PACKED_WEIGHTS");
    return v && std::strcmp(v, "0") == 0;
}

std::atomic<bool>& enabledFlag() {
    static std::atomic<bool> on{PackedWeights::supported() && !switchedOffByEnvironment()};
    return on;
}

} // namespace

bool PackedWeights::enabled() {
    return enabledFlag().load();
}

void PackedWeights::setEnabled(bool on) {
    enabledFlag() = on && supported();
}

std::string PackedWeights::describe() {
    if (!supported())
        return "not built";
    if (!enabled())
        return switchedOffByEnvironment() ? "off (ATTNSCOPE_PACKED_WEIGHTS=0)" : "off";
#ifdef ATTNSCOPE_HAVE_DNNL
    const auto* v = dnnl_version();
    return "oneDNN " + std::to_string(v->major) + "." + std::to_string(v->minor) + "." +
           std::to_string(v->patch);
#else
    return "not built";
#endif
}

#ifdef ATTNSCOPE_HAVE_DNNL

namespace {

using dnnl::memory;
using Tag = memory::format_tag;
constexpr auto kF32 = memory::data_type::f32;

const dnnl::engine& cpu() {
    static const dnnl::engine e(dnnl::engine::kind::cpu, 0);
    return e;
}

// A stream is an execution queue; one per thread keeps concurrent callers apart.
dnnl::stream& threadStream() {
    thread_local dnnl::stream s(cpu());
    return s;
}

// oneDNN runs on the OpenMP threads LibTorch and OpenBLAS use, as many as the calling thread's OpenMP setting
// says when a primitive is made. A small product finishes before a second thread has woken from its sleep
// between two operations, so it runs on the calling thread alone. Where "small" ends was measured on the
// benchmark's two shapes, alternating settings over five rounds: one row (a decode step) gains from a second
// thread from 2^18 multiply-adds on (a 512 × 512 weight; greedy decoding of the medium shape 223 ms against
// 295 with the bound at 2^20), many rows from 2^20. The OpenMP entry points are looked up in the running
// process, as core::blas does the BLAS's: LibTorch loaded libgomp.
constexpr int64_t kSerialRowBelow = int64_t(1) << 18; // multiply-adds, one row
constexpr int64_t kSerialBelow = int64_t(1) << 20;    // multiply-adds, several rows

struct OpenMp {
    int (*maxThreads)() = nullptr;
    void (*setThreads)(int) = nullptr;
};

const OpenMp& openMp() {
    static const OpenMp o = [] {
        OpenMp out;
        out.maxThreads = reinterpret_cast<int (*)()>(dlsym(RTLD_DEFAULT, "omp_get_max_threads"));
        out.setThreads = reinterpret_cast<void (*)(int)>(dlsym(RTLD_DEFAULT, "omp_set_num_threads"));
        if (!out.maxThreads || !out.setThreads)
            out = OpenMp{};
        return out;
    }();
    return o;
}

// The calling thread's OpenMP thread count set to `threads` while it lives (unchanged without OpenMP).
class ThreadCount {
public:
    explicit ThreadCount(int threads) {
        if (openMp().maxThreads && (before_ = openMp().maxThreads()) != threads)
            openMp().setThreads(threads);
        else
            before_ = 0;
    }
    ~ThreadCount() {
        if (before_ > 0)
            openMp().setThreads(before_);
    }
    ThreadCount(const ThreadCount&) = delete;
    ThreadCount& operator=(const ThreadCount&) = delete;

private:
    int before_ = 0;
};

// Primitives are made for one row count; a keystroke changes it by one, so a few dozen are kept and the
// oldest made is dropped (oneDNN keeps its compiled kernels in a cache of its own besides).
constexpr std::size_t kKeptShapes = 32;

} // namespace

struct PackedWeights::Impl {
    memory::desc weightsDesc; // the blocked layout oneDNN chose, the same for every row count
    memory weights, bias;
    std::vector<float> biasData;
    bool hasBias = false;
    mutable std::mutex mutex;
    // By row count and thread count (a primitive divides its work when it is made).
    mutable std::map<std::pair<int64_t, int>, dnnl::inner_product_forward> primitives;
    mutable std::vector<std::pair<int64_t, int>> made; // in the order their primitives were made

    dnnl::inner_product_forward::primitive_desc describe(int64_t m, int64_t n, int64_t k,
                                                         const memory::desc& w) const {
        const memory::desc src({m, k}, kF32, Tag::nc), dst({m, n}, kF32, Tag::nc);
        const auto desc =
            hasBias ? dnnl::inner_product_forward::desc(dnnl::prop_kind::forward_inference, src, w,
                                                        memory::desc({n}, kF32, Tag::x), dst)
                    : dnnl::inner_product_forward::desc(dnnl::prop_kind::forward_inference, src, w, dst);
        return {desc, cpu()};
    }

    // Under the caller's lock.
    dnnl::inner_product_forward primitive(int64_t m, int64_t n, int64_t k, int threads) const {
        const auto key = std::make_pair(m, threads);
        const auto found = primitives.find(key);
        if (found != primitives.end())
            return found->second;
        if (made.size() >= kKeptShapes) {
            primitives.erase(made.front());
            made.erase(made.begin());
        }
        dnnl::inner_product_forward p(describe(m, n, k, weightsDesc));
        primitives.emplace(key, p);
        made.push_back(key);
        return p;
    }
};

bool PackedWeights::supported() {
    return true;
}

PackedWeights::PackedWeights(const float* w, int64_t n, int64_t k, const float* bias)
    : impl_(std::make_unique<Impl>()), n_(n), k_(k) {
    try {
        impl_->hasBias = bias != nullptr;
        // The layout is asked for once, for a 64-row product; it does not depend on the row count.
        const auto pd = impl_->describe(64, n, k, memory::desc({n, k}, kF32, Tag::any));
        impl_->weightsDesc = pd.weights_desc();
        impl_->weights = memory(impl_->weightsDesc, cpu());
        memory plain(memory::desc({n, k}, kF32, Tag::oi), cpu(), const_cast<float*>(w));
        dnnl::reorder(plain, impl_->weights).execute(threadStream(), plain, impl_->weights);
        threadStream().wait();
        if (bias) {
            impl_->biasData.assign(bias, bias + n);
            impl_->bias = memory(memory::desc({n}, kF32, Tag::x), cpu(), impl_->biasData.data());
        }
    } catch (const dnnl::error& e) {
        throw std::runtime_error("cannot pack a " + std::to_string(n) + " x " + std::to_string(k) +
                                 " weight: " + e.what());
    }
}

PackedWeights::~PackedWeights() = default;

void PackedWeights::apply(const float* x, int64_t m, float* y) const {
    // One caller at a time per weight: a primitive's scratch memory is its own, not each caller's.
    std::lock_guard<std::mutex> lock(impl_->mutex);
    const bool serial = m * n_ * k_ < (m == 1 ? kSerialRowBelow : kSerialBelow) || !openMp().maxThreads;
    const int threads = serial ? 1 : openMp().maxThreads();
    const ThreadCount count(threads);
    const auto p = impl_->primitive(m, n_, k_, threads);
    memory src(memory::desc({m, k_}, kF32, Tag::nc), cpu(), const_cast<float*>(x));
    memory dst(memory::desc({m, n_}, kF32, Tag::nc), cpu(), y);
    auto& s = threadStream();
    if (impl_->hasBias)
        p.execute(s, {{DNNL_ARG_SRC, src},
                      {DNNL_ARG_WEIGHTS, impl_->weights},
                      {DNNL_ARG_BIAS, impl_->bias},
                      {DNNL_ARG_DST, dst}});
    else
        p.execute(s, {{DNNL_ARG_SRC, src}, {DNNL_ARG_WEIGHTS, impl_->weights}, {DNNL_ARG_DST, dst}});
    s.wait();
}

std::size_t PackedWeights::bytes() const {
    return impl_->weightsDesc.get_size() + impl_->biasData.size() * sizeof(float);
}

#else // built without oneDNN: nothing packs, and callers take their own path

struct PackedWeights::Impl {};

bool PackedWeights::supported() {
    return false;
}

PackedWeights::PackedWeights(const float*, int64_t n, int64_t k, const float*) : n_(n), k_(k) {
    throw std::runtime_error("this build cannot pack weights (it was built without oneDNN)");
}

PackedWeights::~PackedWeights() = default;

void PackedWeights::apply(const float*, int64_t, float*) const {}

std::size_t PackedWeights::bytes() const {
    return 0;
}

#endif

} // namespace core
