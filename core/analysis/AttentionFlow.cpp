#include "core/analysis/AttentionFlow.h"

#include "core/base/Errors.h"

#include <algorithm>
#include <limits>
#include <queue>
#include <string>
#include <vector>

namespace core {

namespace {

// Below this a capacity counts as used up: the weights are floats, and their sums drift by about this much.
constexpr double kEps = 1e-9;

// Dinic's maximum flow on a fixed network whose flows are reset between runs: each output × input pair is a
// run on the same graph.
class MaxFlow {
public:
    explicit MaxFlow(int nodes) : adjacency_(static_cast<std::size_t>(nodes)) {}

    void addEdge(int from, int to, double capacity) {
        if (capacity <= kEps)
            return;
        auto& a = adjacency_[static_cast<std::size_t>(from)];
        auto& b = adjacency_[static_cast<std::size_t>(to)];
        a.push_back({to, static_cast<int>(b.size()), capacity, capacity});
        b.push_back({from, static_cast<int>(a.size()) - 1, 0.0, 0.0});
    }

    double run(int source, int sink) {
        for (auto& edges : adjacency_)
            for (auto& e : edges)
                e.left = e.capacity;
        double total = 0.0;
        while (levels(source, sink)) {
            next_.assign(adjacency_.size(), 0);
            while (const double pushed = augment(source, sink, std::numeric_limits<double>::infinity()))
                total += pushed;
        }
        return total;
    }

private:
    struct Edge {
        int to;
        int reverse; // index of the reverse edge in adjacency_[to]
        double capacity;
        double left;
    };

    bool levels(int source, int sink) {
        level_.assign(adjacency_.size(), -1);
        std::queue<int> queue;
        level_[static_cast<std::size_t>(source)] = 0;
        queue.push(source);
        while (!queue.empty()) {
            const int v = queue.front();
            queue.pop();
            for (const auto& e : adjacency_[static_cast<std::size_t>(v)])
                if (e.left > kEps && level_[static_cast<std::size_t>(e.to)] < 0) {
                    level_[static_cast<std::size_t>(e.to)] = level_[static_cast<std::size_t>(v)] + 1;
                    queue.push(e.to);
                }
        }
        return level_[static_cast<std::size_t>(sink)] >= 0;
    }

    // One augmenting path along the level graph, as deep as the graph's layers (a few dozen at most).
    double augment(int v, int sink, double limit) {
        if (v == sink)
            return limit;
        auto& edges = adjacency_[static_cast<std::size_t>(v)];
        for (auto& i = next_[static_cast<std::size_t>(v)]; i < edges.size(); ++i) {
            auto& e = edges[i];
            if (e.left <= kEps ||
                level_[static_cast<std::size_t>(e.to)] != level_[static_cast<std::size_t>(v)] + 1)
                continue;
            if (const double pushed = augment(e.to, sink, std::min(limit, e.left)); pushed > kEps) {
                e.left -= pushed;
                adjacency_[static_cast<std::size_t>(e.to)][static_cast<std::size_t>(e.reverse)].left +=
                    pushed;
                return pushed;
            }
        }
        return 0.0;
    }

    std::vector<std::vector<Edge>> adjacency_;
    std::vector<int> level_;
    std::vector<std::size_t> next_;
};

// Edges of one attention layer from the nodes below (inputs, first at `from`) to the nodes above (queries,
// first at `to`): query i draws on key j with weight m[i][j] times `scale`.
void addLayer(MaxFlow& g, const Matrix& m, int from, int to, double scale) {
    for (int i = 0; i < m.rows; ++i)
        for (int j = 0; j < m.cols; ++j)
            g.addEdge(from + j, to + i, scale * double(m.at(i, j)));
}

} // namespace

std::optional<Rollout> attentionFlow(const AttentionSnapshot& snap, AttentionKind kind,
                                     const FlowProgress& progress) {
    const auto graph = attentionGraph(snap, kind);
    const int s = graph.encoder.empty() ? 0 : graph.encoder.front().rows;
    const int t = graph.decoder.empty() ? 0 : graph.decoder.front().rows;
    for (const int n : {s, t})
        if (n > kFlowMaxTokens)
            throw InputError("attention flow takes sides of at most " + std::to_string(kFlowMaxTokens) +
                             " tokens (a max-flow per output and input); this run has " + std::to_string(n) +
                             ": use rollout, or a shorter text");
    // Nodes: the encoder's levels (S each, the source first), then the target's input level and, per decoder
    // layer, a level after self-attention and (encoder–decoder) one after cross-attention.
    const int encLevels = graph.encoder.empty() ? 0 : static_cast<int>(graph.encoder.size()) + 1;
    const bool cross = !graph.cross.empty();
    const int decLayers = static_cast<int>(graph.decoder.size());
    const int decLevels = t == 0 ? 0 : 1 + decLayers * (cross ? 2 : 1);
    MaxFlow g(encLevels * s + decLevels * t);
    for (int l = 0; l + 1 < encLevels; ++l)
        addLayer(g, graph.encoder[static_cast<std::size_t>(l)], l * s, (l + 1) * s, 1.0);
    const int encOut = (encLevels - 1) * s; // first node of the encoder's output level
    const int dec0 = encLevels * s;
    int below = dec0;
    for (int l = 0; l < decLayers; ++l) {
        const int self = below + t;
        addLayer(g, graph.decoder[static_cast<std::size_t>(l)], below, self, 1.0);
        below = self;
        if (cross) {
            const int after = self + t;
            for (int i = 0; i < t; ++i)
                g.addEdge(self + i, after + i, 0.5); // the residual stream, counted as half
            addLayer(g, graph.cross[static_cast<std::size_t>(l)], encOut, after, 0.5);
            below = after;
        }
    }
    // Sources: the kind's input tokens; sinks: its last level.
    const bool fromSource = kind != AttentionKind::Decoder;
    const int inputs = fromSource ? s : t, inputAt = fromSource ? 0 : dec0;
    const int outputs = kind == AttentionKind::Encoder ? s : t;
    const int outputAt = kind == AttentionKind::Encoder ? encOut : below;

    Rollout out;
    out.kind = kind;
    out.flow = true;
    out.weights = Matrix(outputs, inputs);
    out.share.assign(static_cast<std::size_t>(outputs), 1.0f);
    for (int i = 0; i < outputs; ++i) {
        for (int j = 0; j < inputs; ++j)
            out.weights.data[static_cast<std::size_t>(i) * static_cast<std::size_t>(inputs) +
                             static_cast<std::size_t>(j)] =
                static_cast<float>(g.run(inputAt + j, outputAt + i));
        if (progress && !progress(i + 1, outputs))
            return std::nullopt;
    }
    return out;
}

} // namespace core
