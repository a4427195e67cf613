#include "core/run/DecoderFactory.h"

#include "core/model/ModelConfig.h"
#include "core/run/ClassifierDecoder.h"
#include "core/run/GruDecoder.h"
#include "core/run/IncrementalDecoder.h"

namespace core {

std::unique_ptr<StepDecoder> startDecoder(std::shared_ptr<const Model> model, const std::vector<int64_t>& src,
                                          bool capture, int64_t positions, const HeadAblation& ablation,
                                          const LayerDone& layerDone) {
    checkAblation(ablation, model->config());
    // A recurrent family always captures: one row of S weights a step costs nothing worth saving.
    switch (model->config().family) {
    case Family::AttentionClassifier:
        return std::make_unique<ClassifierDecoder>(std::move(model), src, positions);
    case Family::GruAttention:
        return std::make_unique<GruDecoder>(std::move(model), src, positions);
    case Family::Transformer:
        break;
    }
    return std::make_unique<IncrementalDecoder>(std::move(model), src, capture, positions, ablation,
                                                layerDone);
}

} // namespace core
