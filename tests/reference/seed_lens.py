"""The logit lens in the seed's own PyTorch code, for attnscope's lens test.

Builds the seed's make_model as make_seed_reference.py does (written to --out as a model directory). Forward
hooks record the residual stream where the lens reads it: the output of tgt_embed (the embeddings and
positions), then the output of each decoder layer's SublayerConnection (x + sublayer(norm(x))) in order:
self-attention, cross-attention, feed-forward. Each is read as the seed reads its last layer's output,
model.generator(model.decoder.norm(h)), into log-probabilities over the target vocabulary. One case runs
with heads switched off (seed_ablation's pre-hook on W_O), as the lens of an ablated run reads it.
Writes lens.json: {"cases": [{"src_ids", "tgt_ids", "ablate", "points": [names],
"logprobs": [point][position][V], "next_token_logprobs": [V]}]}.
"""
import argparse
import json
from pathlib import Path

import seed_runner  # first: it turns a missing PyTorch or NumPy into a skip
import torch  # noqa: E402

import make_seed_reference  # noqa: E402
import seed_ablation  # noqa: E402

ABLATIONS = [{}, {"cross": [[1, 1]], "decoder": [[0, 2]]}]
SUBLAYERS = ["attn", "cross", "mlp"]  # the seed's DecoderLayer: self_attn, src_attn, feed_forward


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--out", required=True)
    ap.add_argument("--seed-dir")
    args = ap.parse_args()
    seed = seed_runner.import_seed(args.seed_dir)
    out = Path(args.out)
    model, _ = make_seed_reference.write_model(seed, out, 0)
    attention = seed_ablation.modules(model)
    cases = []
    for case in make_seed_reference.CASES:
        for ablate in ABLATIONS:
            handles = seed_ablation.switch_off(attention, ablate)
            stream, names = [], []

            def keep(name):
                def hook(_module, _inputs, output):
                    stream.append(output.detach().clone())  # (1, T, C)
                    names.append(name)
                return hook

            handles.append(model.tgt_embed.register_forward_hook(keep("embed")))
            for i, layer in enumerate(model.decoder.layers):
                for j, sub in enumerate(layer.sublayer):
                    handles.append(sub.register_forward_hook(keep(f"{i}.{SUBLAYERS[j]}")))
            src = torch.LongTensor([case["src_ids"]])
            tgt = torch.LongTensor([case["tgt_ids"]])
            src_mask = (src != 0).unsqueeze(-2)
            tgt_mask = (tgt != 0).unsqueeze(-2) & seed.subsequent_mask(tgt.size(-1)).type_as(src_mask)
            with torch.no_grad():
                memory = model.encode(src, src_mask)
                hidden = model.decode(memory, src_mask, tgt, tgt_mask)
                own = model.generator(hidden)[0]  # (T, V)
                readings = [model.generator(model.decoder.norm(h))[0].tolist() for h in stream]
            for h in handles:
                h.remove()
            cases.append({"src_ids": case["src_ids"], "tgt_ids": case["tgt_ids"], "ablate": ablate,
                          "points": names, "logprobs": readings, "next_token_logprobs": own[-1].tolist()})
    (out / "lens.json").write_text(json.dumps({"cases": cases}))
    print(f"wrote the lens of {len(cases)} runs of the seed's model to {out / 'lens.json'}")


if __name__ == "__main__":
    main()
