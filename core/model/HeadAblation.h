#pragma once
// Heads switched off (Michel et al., 2019): a head's output is zeroed before W_O, so the layer goes on
// with the other heads' outputs alone. Its attention is still computed (and captured): what it would have
// attended to stays visible, only its contribution is gone.

#include "core/model/AttentionBlock.h"
#include "core/model/ModelConfig.h"

#include <array>
#include <cstdint>
#include <string>
#include <vector>

namespace core {

/// One head of one kind of attention.
struct HeadRef {
    AttentionKind kind = AttentionKind::Encoder;
    int layer = 0;
    int head = 0;
    bool operator==(const HeadRef& o) const { return kind == o.kind && layer == o.layer && head == o.head; }
    bool operator<(const HeadRef& o) const;
};

/// "encoder 1:3": the kind, the layer and the head.
std::string toString(const HeadRef& head);

class HeadAblation {
public:
    bool empty() const { return count_ == 0; }
    std::size_t size() const { return count_; }
    bool off(const HeadRef& head) const;
    /// Switches a head off or back on.
    void set(const HeadRef& head, bool off);
    void toggle(const HeadRef& head) { set(head, !off(head)); }
    void clear();
    /// The heads switched off, by kind, layer and head.
    std::vector<HeadRef> heads() const;
    /// [heads] flags of one layer of a kind with `heads` heads, nonzero where the head is off; empty when
    /// none of the layer's heads is: what the attention block reads.
    std::vector<std::uint8_t> layerMask(AttentionKind kind, int layer, int heads) const;
    /// "encoder 0:1, cross 1:3", or "none".
    std::string text() const;

    bool operator==(const HeadAblation& o) const { return heads() == o.heads(); }
    bool operator!=(const HeadAblation& o) const { return !(*this == o); }

private:
    // Per kind, [layer][head], grown as heads are set; a layer with no head off is kept as all zeros.
    std::array<std::vector<std::vector<std::uint8_t>>, 4> masks_;
    std::size_t count_ = 0;
};

/// Throws InputError naming the first head the model does not have (the kind, the layer or the head out of
/// range, with the valid range), or when the model's family has no heads to switch off.
void checkAblation(const HeadAblation& ablation, const ModelConfig& config);

/// Adds the heads of "L:H[,L:H…]" of one kind to `into` (the command line's --ablate); an item may name its
/// own kind, "cross:1:3". Throws InputError for a malformed list, naming the bad item, and as checkAblation
/// for a head the model does not have; `into` is unchanged then.
void addAblation(HeadAblation& into, const std::string& list, AttentionKind kind, const ModelConfig& config);

} // namespace core
