"""The seed's own intermediate tensors of every attention block, for the Inside view's test.

Builds the seed's make_model as make_seed_reference.py does (written to --out as a model directory) and,
for its cases, records with forward hooks what each MultiHeadedAttention computed: the residual entering
the sublayer, the normed inputs of the query and key sides, the projections Q, K, V (before the heads are
split), the probabilities, the heads' outputs side by side (the input of linears[3]) and its output. Writes
inside.json: {"cases": [{"src_ids", "tgt_ids", "encoder"|"decoder"|"cross": [per layer {"residual", "x",
"memory", "q", "k", "v", "attn", "concat", "attn_out"}], "ablate": {kind: [[layer, head], ...]}}]},
matrices as (tokens, d_model) and attn as (heads, queries, keys). Each case is recorded once with every
head on and once with some heads switched off as seed_ablation.py switches them (their columns of
linears[3]'s input zeroed), so "concat" holds zeros where they were and every later block sees the change.
"""
import argparse
import json
from pathlib import Path

import seed_runner  # first: it turns a missing PyTorch or NumPy into a skip
import torch  # noqa: E402

import make_seed_reference  # noqa: E402
from seed_ablation import modules, switch_off  # noqa: E402

# Heads of every kind, in both layers: the Inside view must show what the run with them off computed.
ABLATE = {"encoder": [[0, 1]], "decoder": [[1, 2]], "cross": [[0, 0], [1, 3]]}


def hook_block(sublayer, attn, record):
    def pre(_module, inputs):
        record["residual"] = inputs[0][0].tolist()

    def linear_hook(name_in, name_out):
        def hook(_module, inputs, output):
            if name_in:
                record[name_in] = inputs[0][0].tolist()
            record[name_out] = output[0].tolist()
        return hook

    return [
        sublayer.register_forward_pre_hook(pre),
        attn.linears[0].register_forward_hook(linear_hook("x", "q")),
        attn.linears[1].register_forward_hook(linear_hook("memory", "k")),
        attn.linears[2].register_forward_hook(linear_hook(None, "v")),
        attn.linears[3].register_forward_hook(linear_hook("concat", "attn_out")),
    ]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--out", required=True)
    ap.add_argument("--seed-dir")
    args = ap.parse_args()
    seed = seed_runner.import_seed(args.seed_dir)
    out = Path(args.out)
    model, _ = make_seed_reference.write_model(seed, out, 0)
    cases = []
    mods = modules(model)
    for case, ablate in [(c, a) for a in ({}, ABLATE) for c in make_seed_reference.CASES]:
        blocks = {"encoder": [], "decoder": [], "cross": []}
        handles = switch_off(mods, ablate)
        for layer in model.encoder.layers:
            blocks["encoder"].append({})
            handles += hook_block(layer.sublayer[0], layer.self_attn, blocks["encoder"][-1])
        for layer in model.decoder.layers:
            blocks["decoder"].append({})
            handles += hook_block(layer.sublayer[0], layer.self_attn, blocks["decoder"][-1])
            blocks["cross"].append({})
            handles += hook_block(layer.sublayer[1], layer.src_attn, blocks["cross"][-1])
        src = torch.LongTensor([case["src_ids"]])
        tgt = torch.LongTensor([case["tgt_ids"]])
        src_mask = (src != 0).unsqueeze(-2)
        tgt_mask = (tgt != 0).unsqueeze(-2) & seed.subsequent_mask(tgt.size(-1)).type_as(src_mask)
        with torch.no_grad():
            memory = model.encode(src, src_mask)
            model.decode(memory, src_mask, tgt, tgt_mask)
        for h in handles:
            h.remove()
        for kind, layers in (("encoder", model.encoder.layers), ("decoder", model.decoder.layers)):
            for i, layer in enumerate(layers):
                blocks[kind][i]["attn"] = layer.self_attn.attn[0].tolist()
        for i, layer in enumerate(model.decoder.layers):
            blocks["cross"][i]["attn"] = layer.src_attn.attn[0].tolist()
        cases.append({"src_ids": case["src_ids"], "tgt_ids": case["tgt_ids"], "ablate": ablate, **blocks})
    (out / "inside.json").write_text(json.dumps({"cases": cases}))
    print(f"wrote the seed's attention internals of {len(cases)} cases to {out / 'inside.json'}")


if __name__ == "__main__":
    main()
