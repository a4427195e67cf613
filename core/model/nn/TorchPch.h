#pragma once
// Precompiled for every torch translation unit in core/: one parse of the torch headers instead of ~40 s
// each.
#include <torch/torch.h>
