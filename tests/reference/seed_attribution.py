"""Direct logit attribution in the seed's own PyTorch code, for attnscope's attribution test.

Builds the seed's make_model as make_seed_reference.py does (written to --out as a model directory). Forward
hooks record what wrote the decoder's residual stream at every position: the output of tgt_embed (the
embeddings and positions), the input of each attention module's linears[3] (every head's output side by
side, as the seed's attention computes it; heads switched off by seed_ablation's pre-hook are zero there),
and the output of each feed_forward; the input of decoder.norm is the final stream. In float64 each head's
part is W_O[:, h·d_k:(h+1)·d_k] @ z_h, each attention bias b_O a part, each MLP output a part; the final
LayerNorm is frozen at the stream's own mean and std (the seed's: unbiased std, eps added to it), so part c
becomes a_2 ⊙ (c − mean(c)) / (std + eps) and b_2 a part of its own; each part's contribution to token t's
logit is generator.proj.weight[t] · part, and proj.bias[t] the last. At every position the token is the
model's most likely next one, and versus its second.
Writes attribution.json: {"cases": [{"src_ids", "tgt_ids", "ablate", "positions": [{"position", "token",
"versus", "logit", "difference", "components": {name: [contribution to the logit, to the difference]}}]}]}.
"""
import argparse
import json
from pathlib import Path

import seed_runner  # first: it turns a missing PyTorch or NumPy into a skip
import torch  # noqa: E402

import make_seed_reference  # noqa: E402
import seed_ablation  # noqa: E402

ABLATIONS = [{}, {"cross": [[1, 1]], "decoder": [[0, 2]]}]


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
            seen = {}

            def keep_output(name):
                def hook(_module, _inputs, output):
                    seen[name] = output.detach()[0].double()  # (T, C)
                return hook

            def keep_input(name):
                def hook(_module, inputs):
                    seen[name] = inputs[0].detach()[0].double()  # (T, C)
                return hook

            # Registered after the ablation's pre-hooks, so the heads switched off are already zero here.
            handles.append(model.tgt_embed.register_forward_hook(keep_output("embed")))
            for i, layer in enumerate(model.decoder.layers):
                for part, attn in (("attn", layer.self_attn), ("cross", layer.src_attn)):
                    handles.append(attn.linears[3].register_forward_pre_hook(keep_input(f"{i}.{part}")))
                handles.append(layer.feed_forward.register_forward_hook(keep_output(f"{i}.mlp")))
            handles.append(model.decoder.norm.register_forward_pre_hook(keep_input("final")))
            src = torch.LongTensor([case["src_ids"]])
            tgt = torch.LongTensor([case["tgt_ids"]])
            src_mask = (src != 0).unsqueeze(-2)
            tgt_mask = (tgt != 0).unsqueeze(-2) & seed.subsequent_mask(tgt.size(-1)).type_as(src_mask)
            with torch.no_grad():
                memory = model.encode(src, src_mask)
                hidden = model.decode(memory, src_mask, tgt, tgt_mask)
                logits = model.generator.proj(hidden)[0].double()  # (T, V)
            for h in handles:
                h.remove()
            norm = model.decoder.norm
            proj_w = model.generator.proj.weight.detach().double()  # (V, C)
            proj_b = model.generator.proj.bias.detach().double()  # (V)
            positions = []
            for t in range(tgt.size(1)):
                parts = {"embed": seen["embed"][t]}
                for i, layer in enumerate(model.decoder.layers):
                    for part, attn in (("attn", layer.self_attn), ("cross", layer.src_attn)):
                        z = seen[f"{i}.{part}"][t]  # (C): every head's output side by side
                        w = attn.linears[3].weight.detach().double()  # (C, C)
                        d_k = attn.d_k
                        for h in range(attn.h):
                            parts[f"{i}.{part}.{h}"] = w[:, h * d_k:(h + 1) * d_k] @ z[h * d_k:(h + 1) * d_k]
                        parts[f"{i}.{part}.bias"] = attn.linears[3].bias.detach().double()
                    parts[f"{i}.mlp"] = seen[f"{i}.mlp"][t]
                x = seen["final"][t]  # (C)
                std = x.std() + norm.eps  # the seed's LayerNorm: unbiased std, eps added to it
                a2 = norm.a_2.detach().double()
                normed = {k: a2 * (v - v.mean()) / std for k, v in parts.items()}
                normed["final_norm"] = norm.b_2.detach().double()
                top = torch.topk(logits[t], 2).indices.tolist()
                token, versus = top[0], top[1]
                components = {k: [float(proj_w[token] @ v), float((proj_w[token] - proj_w[versus]) @ v)]
                              for k, v in normed.items()}
                components["output_bias"] = [float(proj_b[token]), float(proj_b[token] - proj_b[versus])]
                positions.append({"position": t, "token": token, "versus": versus,
                                  "logit": float(logits[t][token]),
                                  "difference": float(logits[t][token] - logits[t][versus]),
                                  "components": components})
            cases.append({"src_ids": case["src_ids"], "tgt_ids": case["tgt_ids"], "ablate": ablate,
                          "positions": positions})
    (out / "attribution.json").write_text(json.dumps({"cases": cases}))
    print(f"wrote the attribution of {len(cases)} runs of the seed's model to {out / 'attribution.json'}")


if __name__ == "__main__":
    main()
