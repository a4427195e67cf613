#pragma once
// A float vector whose memory goes back to FloatPool::shared() instead of the system.

#include <initializer_list>
#include <vector>

namespace core {

/// A std::vector<float> (every reader takes it as one) that hands its memory to the shared FloatPool when it
/// is destroyed or assigned over, so the next large buffer of that size is taken from there already mapped.
/// Copies are plain vector copies.
class PooledFloats : public std::vector<float> {
public:
    using std::vector<float>::vector;
    using std::vector<float>::operator=;
    PooledFloats() = default;
    PooledFloats(std::vector<float>&& v) noexcept : std::vector<float>(std::move(v)) {}
    PooledFloats(const PooledFloats&) = default;
    PooledFloats(PooledFloats&&) noexcept = default;
    PooledFloats& operator=(const PooledFloats&) = default;
    PooledFloats& operator=(PooledFloats&& other) noexcept;
    PooledFloats& operator=(std::vector<float>&& other) noexcept;
    ~PooledFloats();

private:
    void recycle() noexcept;
};

} // namespace core
