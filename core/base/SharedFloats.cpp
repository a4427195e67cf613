#include "core/base/SharedFloats.h"

#include "core/base/FloatPool.h"

#include <algorithm>

namespace core {

SharedFloats::SharedFloats(std::vector<float>&& v) {
    *this = std::move(v);
}

SharedFloats& SharedFloats::operator=(std::vector<float>&& v) {
    buf_ = std::make_shared<PooledFloats>(std::move(v));
    return *this;
}

SharedFloats& SharedFloats::operator=(const std::vector<float>& v) {
    assign(v.data(), v.data() + v.size());
    return *this;
}

const std::vector<float>& SharedFloats::vector() const {
    static const std::vector<float> none;
    return buf_ ? *buf_ : none;
}

float* SharedFloats::mutableData() {
    if (!buf_)
        return nullptr;
    if (buf_.use_count() > 1) {
        // Another copy reads this buffer: write into one of our own, taken from the pool (already mapped).
        auto own = FloatPool::shared().take(buf_->size());
        std::copy(buf_->begin(), buf_->end(), own.begin());
        *this = std::move(own);
    }
    return buf_->data();
}

void SharedFloats::assign(const float* first, const float* last) {
    auto own = FloatPool::shared().take(static_cast<std::size_t>(last - first));
    std::copy(first, last, own.begin());
    *this = std::move(own);
}

bool operator==(const SharedFloats& a, const SharedFloats& b) {
    return a.sharesWith(b) || a.vector() == b.vector();
}

bool operator==(const SharedFloats& a, const std::vector<float>& b) {
    return a.vector() == b;
}

} // namespace core
