#include "core/base/FloatPool.h"

namespace core {

namespace {

std::size_t capacityBytes(const std::vector<float>& v) {
    return v.capacity() * sizeof(float);
}

} // namespace

FloatPool& FloatPool::shared() {
    // Never destroyed: snapshots held by other static objects may hand their buffers back during exit.
    static auto* pool = new FloatPool();
    return *pool;
}

std::vector<float> FloatPool::take(std::size_t size) {
    std::vector<float> out;
    if (size * sizeof(float) >= kMinBytes) {
        std::lock_guard<std::mutex> lock(mutex_);
        auto best = kept_.end();
        for (auto it = kept_.begin(); it != kept_.end(); ++it)
            if (it->capacity() >= size && (best == kept_.end() || it->capacity() < best->capacity()))
                best = it;
        if (best != kept_.end()) {
            out.swap(*best);
            keptBytes_ -= capacityBytes(out);
            kept_.erase(best);
        }
    }
    // Within the capacity: no reallocation, and only cells past the last owner's size are written (zeros).
    out.resize(size);
    return out;
}

void FloatPool::give(std::vector<float>& v) {
    std::vector<float> mine;
    mine.swap(v);
    const auto bytes = capacityBytes(mine);
    if (bytes < kMinBytes || bytes > maxBytes_)
        return; // freed here, outside the lock
    std::list<std::vector<float>> dropped;
    {
        std::lock_guard<std::mutex> lock(mutex_);
        while (keptBytes_ + bytes > maxBytes_) {
            keptBytes_ -= capacityBytes(kept_.front());
            dropped.splice(dropped.end(), kept_, kept_.begin());
        }
        keptBytes_ += bytes;
        kept_.emplace_back(std::move(mine));
    }
}

void FloatPool::clear() {
    std::list<std::vector<float>> dropped;
    std::lock_guard<std::mutex> lock(mutex_);
    dropped.swap(kept_);
    keptBytes_ = 0;
}

std::size_t FloatPool::keptBytes() const {
    std::lock_guard<std::mutex> lock(mutex_);
    return keptBytes_;
}

std::size_t FloatPool::keptBuffers() const {
    std::lock_guard<std::mutex> lock(mutex_);
    return kept_.size();
}

} // namespace core
