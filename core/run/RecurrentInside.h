#pragma once
// What the recurrent families' inside rows share: their scores are sums of elementwise terms (a product
// with a learned query, or v ⊙ tanh(…) for additive scoring), and their weights pool plain states.

#include "core/run/InsideRow.h"

namespace core {

/// From row.products (Tk × D, whose row sums plus row.shift are the scores) and row.v (Tk × D', the states
/// pooled), fills the scores, the weights (softmax, every key visible, no scaling), the weighted states and
/// their sum z.
void finishRecurrentRow(InsideRow& row);

} // namespace core
