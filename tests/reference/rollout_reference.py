"""Attention rollout and attention flow (Abnar & Zuidema, 2020), written here from their definitions, for
attnscope's rollout test. Reads a dump (`attnscope dump` JSON: "attention": {kind: [L][H][Q][K]}) and
writes to --out JSON {"rollout": [rows][cols], "share": [rows], "flow": [rows][cols]} for --kind.

Each layer: the heads' mean A, plus the identity for the residual, rows renormalised. Rollout multiplies
those through the layers. An encoder-decoder's decoder positions carry [target | source] distributions:
self-attention mixes them, cross-attention then halves them and adds half of C @ (encoder rollout), so that
"cross" is the source part and "decoder" the target part, each shown with rows renormalised ("share" is
the part's total before that). Flow is the maximum flow through the same graph as a network whose edge
capacities are those weights, found here by Edmonds-Karp (shortest augmenting paths on a dense capacity
matrix), for each input (source) and output (sink).
"""
import argparse
import json
import sys
from collections import deque

try:
    import numpy as np
except ImportError:
    print("numpy for Python is not installed (Debian's python3-numpy)", file=sys.stderr)
    sys.exit(77)


def mean_heads(block):
    return [np.asarray(layer, dtype=np.float64).mean(axis=0) for layer in block]


def residual(a):
    r = a + np.eye(a.shape[0])
    return r / r.sum(axis=1, keepdims=True)


def rollout(att, kind):
    if kind == "encoder" or "cross" not in att:
        r = None
        for a in mean_heads(att[kind]):
            r = residual(a) if r is None else residual(a) @ r
        return r
    enc = rollout(att, "encoder")
    self_means, cross_means = mean_heads(att["decoder"]), mean_heads(att["cross"])
    t = self_means[0].shape[0]
    dtt, dts = np.eye(t), np.zeros((t, enc.shape[0]))
    for a, c in zip(self_means, cross_means):
        a = residual(a)
        dtt, dts = a @ dtt, a @ dts
        dtt, dts = 0.5 * dtt, 0.5 * dts + 0.5 * (c @ enc)
    return dts if kind == "cross" else dtt


def max_flow(cap, s, t):
    n = cap.shape[0]
    flow = np.zeros_like(cap)
    total = 0.0
    while True:
        parent = [-1] * n
        parent[s] = s
        queue = deque([s])
        while queue and parent[t] < 0:
            u = queue.popleft()
            for v in np.nonzero(cap[u] - flow[u] > 1e-12)[0]:
                if parent[v] < 0:
                    parent[v] = u
                    queue.append(v)
        if parent[t] < 0:
            return total
        path, v = [], t
        while v != s:
            path.append((parent[v], v))
            v = parent[v]
        push = min(cap[u, v] - flow[u, v] for u, v in path)
        for u, v in path:
            flow[u, v] += push
            flow[v, u] -= push
        total += push


def flow(att, kind):
    # Levels of nodes, bottom to top; edges from a level's nodes to the next one's with the layer's weights.
    levels, edges = [], []

    def level(n):
        levels.append(n)
        return sum(levels[:-1])

    enc_dec = "cross" in att
    enc_out = None
    if kind == "encoder" or enc_dec:
        means = mean_heads(att["encoder"])
        s = means[0].shape[0]
        below = level(s)
        enc_in = below
        for a in means:
            above = level(s)
            edges.append((below, above, residual(a), 1.0))
            below = above
        enc_out = below
        if kind == "encoder":
            return network_flows(levels, edges, enc_in, s, enc_out, s)
    means = mean_heads(att["decoder"])
    t = means[0].shape[0]
    below = level(t)
    dec_in = below
    crosses = mean_heads(att["cross"]) if enc_dec else [None] * len(means)
    for a, c in zip(means, crosses):
        above = level(t)
        edges.append((below, above, residual(a), 1.0))
        below = above
        if c is not None:
            after = level(t)
            edges.append((below, after, np.eye(t), 0.5))
            edges.append((enc_out, after, c, 0.5))
            below = after
    if kind == "cross":
        return network_flows(levels, edges, 0, s, below, t)
    return network_flows(levels, edges, dec_in, t, below, t)


def network_flows(levels, edges, inputs_at, inputs, outputs_at, outputs):
    n = sum(levels)
    cap = np.zeros((n, n))
    for frm, to, m, scale in edges:
        for i in range(m.shape[0]):
            for j in range(m.shape[1]):
                cap[frm + j, to + i] += scale * m[i, j]
    return [[max_flow(cap, inputs_at + j, outputs_at + i) for j in range(inputs)] for i in range(outputs)]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--dump", required=True)
    ap.add_argument("--kind", required=True, choices=["encoder", "decoder", "cross"])
    ap.add_argument("--flow", action="store_true")
    ap.add_argument("--out", required=True)
    args = ap.parse_args()
    with open(args.dump) as f:
        att = json.load(f)["attention"]
    r = rollout(att, args.kind)
    share = r.sum(axis=1)
    out = {"rollout": (r / share[:, None]).tolist(), "share": share.tolist()}
    if args.flow:
        out["flow"] = flow(att, args.kind)
    with open(args.out, "w") as f:
        json.dump(out, f)


if __name__ == "__main__":
    main()
