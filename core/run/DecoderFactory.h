#pragma once
// The one place that knows every model family's step decoder: a family's decoder includes StepDecoder.h,
// and this file includes them all, so no include inside core/run/ runs back up.

#include "core/model/HeadAblation.h"
#include "core/model/Model.h"
#include "core/run/StepDecoder.h"

#include <cstdint>
#include <memory>
#include <vector>

namespace core {

/// Starts decoding src with the decoder of the model's family (the Transformer's IncrementalDecoder); each
/// side may hold `positions` tokens (max_len when 0), and the heads `ablation` names are switched off.
/// Throws InputError as IncrementalDecoder does, and as checkAblation for heads the model does not have.
/// With capture, `layerDone` is called after each layer of every pass (see LayerDone).
std::unique_ptr<StepDecoder> startDecoder(std::shared_ptr<const Model> model, const std::vector<int64_t>& src,
                                          bool capture = true, int64_t positions = 0,
                                          const HeadAblation& ablation = {}, const LayerDone& layerDone = {});

} // namespace core
