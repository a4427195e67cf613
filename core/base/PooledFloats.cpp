#include "core/base/PooledFloats.h"

#include "core/base/FloatPool.h"

namespace core {

PooledFloats& PooledFloats::operator=(PooledFloats&& other) noexcept {
    if (this != &other) {
        recycle();
        std::vector<float>::operator=(std::move(other));
    }
    return *this;
}

PooledFloats& PooledFloats::operator=(std::vector<float>&& other) noexcept {
    if (static_cast<std::vector<float>*>(this) != &other) {
        recycle();
        std::vector<float>::operator=(std::move(other));
    }
    return *this;
}

PooledFloats::~PooledFloats() {
    recycle();
}

void PooledFloats::recycle() noexcept {
    if (capacity() == 0)
        return;
    try {
        FloatPool::shared().give(*this);
    } catch (...) {
        // The pool could not take the buffer (no memory for its list node): it is freed as usual.
    }
}

} // namespace core
