"""The seed's make_model with every feed-forward sublayer taken out: an attention-only Transformer, for
attnscope's d_ff 0.

Each layer's feed_forward is replaced by a module that returns zeros, so the seed's own residual
(x + dropout(sublayer(norm(x)))) hands x on unchanged, as a layer without that sublayer does. The model is
written as a model directory without the feed-forward weights and without the norms of the sublayers that are
gone (encoder sublayer.1, decoder sublayer.2), with "d_ff": 0, and reference.json holds the seed's attention
and log-probabilities for make_seed_reference's cases.
"""
import argparse
import json
import re
from pathlib import Path

import seed_runner  # first: it turns a missing PyTorch or NumPy into a skip
import torch  # noqa: E402

import make_seed_reference  # noqa: E402
import safetensors_np  # noqa: E402


class Zero(torch.nn.Module):
    def forward(self, x):
        return torch.zeros_like(x)


GONE = re.compile(r"^(encoder\.layers\.\d+\.sublayer\.1\.|decoder\.layers\.\d+\.sublayer\.2\.)")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--out", required=True)
    ap.add_argument("--seed", type=int, default=3)
    ap.add_argument("--seed-dir")
    args = ap.parse_args()
    seed = seed_runner.import_seed(args.seed_dir)
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    torch.manual_seed(args.seed)
    model = seed.make_model(20, 20, n=2, d_model=64, d_ff=128, h=4)
    model.eval()
    for layer in list(model.encoder.layers) + list(model.decoder.layers):
        layer.feed_forward = Zero()
    state = {k: v.detach().contiguous().numpy() for k, v in model.state_dict().items() if not GONE.match(k)}
    safetensors_np.save(out / "model.safetensors", state, {"format": "pt"})
    make_seed_reference.write_config(out, dict(make_seed_reference.CONFIG, name="seed-attention-only", d_ff=0))
    ref = {"cases": seed_runner.run_cases(seed, model, make_seed_reference.CASES)}
    (out / "reference.json").write_text(json.dumps(ref))
    print(f"wrote {len(state)} tensors of an attention-only seed model and {len(ref['cases'])} cases to {out}")


if __name__ == "__main__":
    main()
