#include "core/run/StepDecoder.h"

#include "core/base/Errors.h"
#include "core/run/IncrementalDecoder.h"

namespace core {

InsideRow StepDecoder::inside(const InsideQuery&) const {
    throw InputError("this model family computes its attention without queries and keys: there is no "
                     "inside to open");
}

std::unique_ptr<StepDecoder> startDecoder(std::shared_ptr<const Model> model, const std::vector<int64_t>& src,
                                          bool capture, int64_t positions) {
    // One family today; the recurrent families join here, chosen by their config.json.
    return std::make_unique<IncrementalDecoder>(std::move(model), src, capture, positions);
}

} // namespace core
