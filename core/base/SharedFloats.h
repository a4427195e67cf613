#pragma once
// A float buffer that copies share until one of them writes (copy on write), its memory going back to
// FloatPool when the last owner lets go.

#include "core/base/PooledFloats.h"

#include <cstddef>
#include <initializer_list>
#include <memory>
#include <vector>

namespace core {

/// Dense attention probabilities are read far more often than written, and copied whole each time the
/// window is handed a snapshot: at 1,024 tokens the encoder's block alone is 100 MB, and copying it into
/// fresh memory took 40% of a keystroke. Copies of a SharedFloats share one buffer; a writer asks for
/// mutableData() (or assigns), which gives it a buffer of its own first when another copy still reads the
/// shared one. Reading is const only, so a reader can never copy by accident.
///
/// Thread safety is that of std::shared_ptr: distinct copies may be used and dropped on different threads.
/// A pointer from mutableData() must not be written through after the object has been copied.
class SharedFloats {
public:
    SharedFloats() = default;
    SharedFloats(std::vector<float>&& v); // NOLINT(google-explicit-constructor): a vector is its contents
    SharedFloats(std::initializer_list<float> values) : SharedFloats(std::vector<float>(values)) {}

    SharedFloats& operator=(std::vector<float>&& v);
    SharedFloats& operator=(const std::vector<float>& v);

    std::size_t size() const { return buf_ ? buf_->size() : 0; }
    bool empty() const { return size() == 0; }
    const float* data() const { return buf_ ? buf_->data() : nullptr; }
    const float* begin() const { return data(); }
    const float* end() const { return data() + size(); }
    float operator[](std::size_t i) const { return (*buf_)[i]; }
    /// The contents as a vector (an empty one when there is no buffer), for code that takes one.
    const std::vector<float>& vector() const;
    operator const std::vector<float>&() const { return vector(); } // NOLINT: read as the vector it is

    /// The buffer for writing, made this object's own first if another copy shares it.
    float* mutableData();
    /// Replaces the contents with [first, last).
    void assign(const float* first, const float* last);
    /// Drops this object's share; the buffer goes back to FloatPool if it was the last.
    void clear() { buf_.reset(); }

    /// Whether two objects read the same buffer (tests, and a check that a snapshot did not copy).
    bool sharesWith(const SharedFloats& other) const { return buf_ && buf_ == other.buf_; }

private:
    std::shared_ptr<PooledFloats> buf_;
};

bool operator==(const SharedFloats& a, const SharedFloats& b);
bool operator==(const SharedFloats& a, const std::vector<float>& b);
inline bool operator==(const std::vector<float>& a, const SharedFloats& b) {
    return b == a;
}
inline bool operator!=(const SharedFloats& a, const SharedFloats& b) {
    return !(a == b);
}
inline bool operator!=(const SharedFloats& a, const std::vector<float>& b) {
    return !(a == b);
}

} // namespace core
