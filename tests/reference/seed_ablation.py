"""Head ablation and value norms in the seed's own PyTorch code, for attnscope's ablation test.

Builds the seed's make_model as make_seed_reference.py does (written to --out as a model directory). For
each case and each set of heads to switch off, a forward pre-hook on the ablated attention modules'
linears[3] zeroes those heads' columns of its input (the heads' outputs side by side), so the heads still
attend but add nothing. Records the next-token log-probabilities, every attention weight, and each
attention module's value norms computed directly: for head h and key j, the norm of
W_O[:, h·d_k:(h+1)·d_k] @ v_j^h, with v the output of linears[2] (the module's own value projection).
Writes ablation.json: {"cases": [{"src_ids", "tgt_ids", "ablate": {kind: [[layer, head], ...]},
"next_token_logprobs", "attention": {kind: [L][H][Q][K]}, "norms": {kind: [L][H][K]}}]}.
"""
import argparse
import json
from pathlib import Path

import seed_runner  # first: it turns a missing PyTorch or NumPy into a skip
import torch  # noqa: E402

import make_seed_reference  # noqa: E402

ABLATIONS = [
    {},
    {"encoder": [[0, 1]]},
    {"decoder": [[1, 2]]},
    {"cross": [[0, 0], [1, 3]]},
    {"encoder": [[1, 0], [1, 3]], "decoder": [[0, 3]], "cross": [[1, 1]]},
]


def modules(model):
    return {
        "encoder": [layer.self_attn for layer in model.encoder.layers],
        "decoder": [layer.self_attn for layer in model.decoder.layers],
        "cross": [layer.src_attn for layer in model.decoder.layers],
    }


def zero_heads(attn, heads):
    d_k = attn.d_k

    def pre(_module, inputs):
        x = inputs[0].clone()
        for h in heads:
            x[..., h * d_k:(h + 1) * d_k] = 0.0
        return (x,)

    return attn.linears[3].register_forward_pre_hook(pre)


def switch_off(attention, ablate):
    """zero_heads on every attention module of `attention` (as modules() gives) that ablate names heads of
    ({kind: [[layer, head], ...]}); returns the hooks' handles."""
    handles = []
    for kind, layers in attention.items():
        for i, attn in enumerate(layers):
            heads = [h for layer, h in ablate.get(kind, []) if layer == i]
            if heads:
                handles.append(zero_heads(attn, heads))
    return handles


def record_values(attn, store):
    def hook(_module, _inputs, output):
        store.append(output[0].detach().clone())  # (keys, C)

    return attn.linears[2].register_forward_hook(hook)


def value_norms(attn, v):
    w = attn.linears[3].weight  # (C, C)
    out = []
    for h in range(attn.h):
        cols = slice(h * attn.d_k, (h + 1) * attn.d_k)
        f = v[:, cols] @ w[:, cols].T  # (keys, C): each key's vector through head h
        out.append(f.norm(dim=-1).tolist())
    return out


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--out", required=True)
    ap.add_argument("--seed-dir")
    args = ap.parse_args()
    seed = seed_runner.import_seed(args.seed_dir)
    out = Path(args.out)
    model, _ = make_seed_reference.write_model(seed, out, 0)
    mods = modules(model)
    cases = []
    for case in make_seed_reference.CASES:
        for ablate in ABLATIONS:
            handles = []
            values = {kind: [[] for _ in layers] for kind, layers in mods.items()}
            for kind, layers in mods.items():
                for i, attn in enumerate(layers):
                    heads = [h for layer, h in ablate.get(kind, []) if layer == i]
                    if heads:
                        handles.append(zero_heads(attn, heads))
                    handles.append(record_values(attn, values[kind][i]))
            src = torch.LongTensor([case["src_ids"]])
            tgt = torch.LongTensor([case["tgt_ids"]])
            src_mask = (src != 0).unsqueeze(-2)
            tgt_mask = (tgt != 0).unsqueeze(-2) & seed.subsequent_mask(tgt.size(-1)).type_as(src_mask)
            with torch.no_grad():
                memory = model.encode(src, src_mask)
                hidden = model.decode(memory, src_mask, tgt, tgt_mask)
                logp = model.generator(hidden)[0]
                norms = {kind: [value_norms(attn, values[kind][i][0]) for i, attn in enumerate(layers)]
                         for kind, layers in mods.items()}
            for h in handles:
                h.remove()
            attention = {kind: [attn.attn[0].tolist() for attn in layers] for kind, layers in mods.items()}
            cases.append({"src_ids": case["src_ids"], "tgt_ids": case["tgt_ids"], "ablate": ablate,
                          "next_token_logprobs": logp[-1].tolist(), "attention": attention, "norms": norms})
    (out / "ablation.json").write_text(json.dumps({"cases": cases}))
    print(f"wrote {len(cases)} ablated runs of the seed's model to {out / 'ablation.json'}")


if __name__ == "__main__":
    main()
