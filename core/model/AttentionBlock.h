#pragma once
// Attention probabilities of every layer and head of one kind, as the views read them: plain data.

#include "core/base/SharedFloats.h"

#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace core {

/// Which attention a block holds. A Transformer has the first three; the seed's recurrent models show their
/// decoder's attention over the source as Cross (one layer, one head) and a classifier's attention pooling
/// as Pooling.
enum class AttentionKind { Encoder, Decoder, Cross, Pooling };
/// Every kind, in the order dumps and selectors list them.
inline constexpr AttentionKind kAttentionKinds[] = {AttentionKind::Encoder, AttentionKind::Decoder,
                                                    AttentionKind::Cross, AttentionKind::Pooling};
const char* toString(AttentionKind);
/// The kind toString() names, or nothing for another string.
std::optional<AttentionKind> attentionKindNamed(const std::string& name);
/// The kinds a Transformer with these stacks has: encoder self-attention with an encoder, decoder
/// self-attention with a decoder, and cross-attention with both.
std::vector<AttentionKind> transformerKinds(bool hasEncoder, bool hasDecoder);

/// The head index that stands for the mean over a layer's heads, wherever a head is chosen or written.
inline constexpr int kMeanHead = -1;

/// [layer][head][query][key] probabilities. Two storages:
/// - dense: float32, every cell, in `data` (row-major). What every block up to kDenseUpToBytes uses, so
///   short inputs are shown exactly as computed.
/// - compact, for long inputs: float16 in `half` (about three significant digits, a relative error of at
///   most 2^-11), and in a causal block only the keys a row can see (row q: keys 0 … q + keys − queries),
///   the masked zeros left out. GPT-2 small's shape at 2,048 tokens needs 2.4 GB dense and 0.6 GB compact.
/// Readers that take every size use row(…, scratch) and head(…, scratch), which hand out the dense
/// storage itself and expand a compact block's row or head into the scratch buffer.
struct AttentionBlock {
    /// A block whose float32 cells would take more than this is stored compact (the default of
    /// denseLimit()).
    static constexpr std::size_t kDenseUpToBytes = std::size_t(256) << 20;
    /// The limit in force: kDenseUpToBytes unless set, process-wide, for a test that needs compact blocks
    /// of a small model. Set it before analyses start, not during one.
    static std::size_t denseLimit();
    static void setDenseLimit(std::size_t bytes);

    int layers = 0;
    int heads = 0;
    int queries = 0;
    int keys = 0;
    /// Dense storage; empty when compact. Copies of a block share it until one writes (a snapshot handed to
    /// the window copies nothing), and its memory is reused by the next block of a similar size
    /// (FloatPool): a keystroke's analysis writes into pages the previous one already faulted in.
    SharedFloats data;
    /// Masked self-attention: row q gives keys past q + keys − queries weight 0. Set before allocate().
    bool causal = false;
    bool triangular = false; ///< compact and causal: rows hold only their visible keys

    bool empty() const { return data.empty() && !compact(); }
    bool compact() const { return half_ && !half_->empty(); }
    /// Bytes of weight storage.
    std::size_t bytes() const { return data.size() * sizeof(float) + halfCells() * sizeof(std::uint16_t); }
    /// Compact storage: IEEE binary16 bits, rows at rowOffset(). Copies of a compact block share it (a
    /// 2,048-token block is 0.6 GB), and writing through mutableHalf() first gives this block its own.
    std::size_t halfCells() const { return half_ ? half_->size() : 0; }
    const std::uint16_t* halfData() const { return half_ ? half_->data() : nullptr; }
    std::uint16_t* mutableHalf();

    /// Whether a block of this shape is stored compact.
    static bool wantsCompact(int layers, int heads, int queries, int keys);
    /// Zeroed storage for this shape, dense or compact as wantsCompact() says; a causal compact block
    /// leaves the masked cells out.
    void allocate(int layers, int heads, int queries, int keys);
    /// Dense and zeroed whatever the size (small blocks built by hand, tests).
    void resize(int layers, int heads, int queries, int keys);

    /// Keys stored for a query row: all of them, or the visible ones of a triangular block.
    int storedKeys(int query) const;
    /// Offset of a row in its storage (in cells).
    std::size_t rowOffset(int layer, int head, int query) const;

    /// Dense index; only for a dense block.
    std::size_t index(int layer, int head, int query, int key) const {
        return rowOffset(layer, head, query) + static_cast<std::size_t>(key);
    }
    float at(int layer, int head, int query, int key) const;
    /// The `keys` weights of one query row of a dense block.
    const float* row(int layer, int head, int query) const {
        return data.data() + index(layer, head, query, 0);
    }
    /// The `keys` weights of one query row, of either storage: dense, the block's own; compact, expanded
    /// into scratch (resized as needed) and valid until scratch changes.
    const float* row(int layer, int head, int query, std::vector<float>& scratch) const;
    /// One head's queries × keys weights, row-major, of either storage (as row()).
    const float* head(int layer, int head, std::vector<float>& scratch) const;
    /// Writes the first `count` weights of one query row (a triangular block keeps the visible ones); the
    /// rest of the row is left as it is.
    void setRow(int layer, int head, int query, const float* weights, int count);

private:
    std::shared_ptr<std::vector<std::uint16_t>> half_;
};

/// The [query][key] mean over the heads of one layer (what kMeanHead shows), row-major (queries × keys);
/// empty for an empty block or a layer out of range.
std::vector<float> meanOverHeads(const AttentionBlock& block, int layer);

/// IEEE binary16 bits to float, by table (every half is a float).
float halfBitsToFloat(std::uint16_t h);

} // namespace core
