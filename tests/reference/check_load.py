"""Loads a model directory written by attnscope into the seed's make_model with load_state_dict(strict=True)
and runs cases on it, writing the outputs in reference.json's format."""
import argparse
import json
import sys
from pathlib import Path

import torch

import safetensors_np
import seed_runner


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--model", required=True)
    ap.add_argument("--cases", required=True)
    ap.add_argument("--out", required=True)
    ap.add_argument("--seed-dir")
    args = ap.parse_args()
    seed = seed_runner.import_seed(args.seed_dir)
    d = Path(args.model)
    c = json.loads((d / "config.json").read_text())
    supported = (c.get("architecture") == "encoder_decoder" and c.get("positional_encoding") == "sinusoidal"
                 and c.get("layer_norm") == "seed" and c.get("activation") == "relu"
                 and c.get("encoder_layers") == c.get("decoder_layers"))
    if not supported:
        print("only the seed's architecture can be loaded into the seed's code", file=sys.stderr)
        sys.exit(3)
    model = seed.make_model(c["src_vocab_size"], c["tgt_vocab_size"], n=c["encoder_layers"],
                            d_model=c["d_model"], d_ff=c["d_ff"], h=c["heads"])
    state = {k: torch.from_numpy(v.copy()) for k, v in safetensors_np.load(d / "model.safetensors").items()}
    try:
        model.load_state_dict(state, strict=True)
    except RuntimeError as e:
        print(f"load_state_dict(strict=True) refused {d}: {e}", file=sys.stderr)
        sys.exit(1)
    model.eval()
    cases = json.loads(Path(args.cases).read_text())["cases"]
    Path(args.out).write_text(json.dumps({"cases": seed_runner.run_cases(seed, model, cases)}))
    print(f"loaded {len(state)} tensors strictly; {len(cases)} cases")


if __name__ == "__main__":
    main()
