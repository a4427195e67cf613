#pragma once
// Large float buffers kept for reuse, so that filling one does not fault in fresh pages.
//
// Every analysis writes its attention probabilities into new buffers (151 MB at 1,024 tokens of the built-in
// model's shape). A buffer that large comes from the kernel as new mappings and goes back to it when the
// snapshot is dropped, so each keystroke faulted in every page again: the profile gave the faults 15% of a
// long analysis. Kept here, the next analysis of the same size writes into pages that are already mapped.

#include <cstddef>
#include <list>
#include <mutex>
#include <vector>

namespace core {

/// A store of float vectors handed back by their owners (PooledFloats does so on destruction) and handed
/// out again by size. Thread-safe: the worker thread takes, the window's thread drops its old snapshots.
class FloatPool {
public:
    /// Buffers under this are left to the allocator, which reuses small blocks without faults anyway.
    static constexpr std::size_t kMinBytes = std::size_t(1) << 20;
    /// The most the shared pool keeps: what a long analysis of the medium shape needs (604 MB) with room.
    static constexpr std::size_t kDefaultMaxBytes = std::size_t(1) << 30;

    explicit FloatPool(std::size_t maxBytes = kDefaultMaxBytes) : maxBytes_(maxBytes) {}

    /// The pool every PooledFloats goes back to.
    static FloatPool& shared();

    /// A vector of `size` floats. Its values are whatever its last owner left (zeros past that owner's
    /// size), so a caller that reads before writing fills it first. Taken from the smallest kept buffer
    /// that holds `size`, or newly allocated.
    std::vector<float> take(std::size_t size);
    /// Keeps v's memory for a later take() when it is large and fits under the limit, dropping the oldest
    /// buffers to make room; v is left empty either way.
    void give(std::vector<float>& v);
    /// Frees every kept buffer.
    void clear();

    /// Bytes of capacity kept now.
    std::size_t keptBytes() const;
    /// Buffers kept now.
    std::size_t keptBuffers() const;

private:
    mutable std::mutex mutex_;
    std::list<std::vector<float>> kept_; // oldest first
    std::size_t keptBytes_ = 0;
    std::size_t maxBytes_;
};

} // namespace core
