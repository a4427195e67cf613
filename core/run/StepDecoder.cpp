#include "core/run/StepDecoder.h"

#include "core/base/Errors.h"

namespace core {

InsideRow StepDecoder::inside(const InsideQuery&) const {
    throw InputError("this model family computes its attention without queries and keys: there is no "
                     "inside to open");
}

KeyNorms StepDecoder::valueNorms(AttentionKind) const {
    return {};
}

} // namespace core
