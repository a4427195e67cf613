#include "core/model/Positional.h"

#include "core/model/nn/PositionalTable.h"

#include <torch/torch.h>

namespace core {

std::vector<float> sinusoidalPositions(int maxLen, int dModel) {
    const auto t = nn::sinusoidalTable(maxLen, dModel).contiguous(); // (P, C)
    return {t.data_ptr<float>(), t.data_ptr<float>() + t.numel()};
}

} // namespace core
