"""Loads a model directory written by attnscope into the seed's make_model with load_state_dict(strict=True)
and runs cases on it, writing the outputs in reference.json's format."""
import argparse
import copy
import json
import sys
from pathlib import Path

import seed_runner  # first: it turns a missing PyTorch or NumPy into a skip
import torch  # noqa: E402

import safetensors_np  # noqa: E402


def build(seed, c):
    """The seed's make_model, with the encoder's and the decoder's N each from config.json (make_model takes
    one n for both; the body is the same, built from the seed's own classes)."""
    if c["encoder_layers"] == c["decoder_layers"]:
        return seed.make_model(c["src_vocab_size"], c["tgt_vocab_size"], n=c["encoder_layers"],
                               d_model=c["d_model"], d_ff=c["d_ff"], h=c["heads"])
    cp = copy.deepcopy
    d, h = c["d_model"], c["heads"]
    attn = seed.MultiHeadedAttention(h, d)
    ff = seed.PositionWiseFeedForward(d, c["d_ff"], 0.1)
    position = seed.PositionalEncoding(d, 0.1)
    return seed.EncoderDecoder(
        seed.Encoder(seed.EncoderLayer(d, cp(attn), cp(ff), 0.1), c["encoder_layers"]),
        seed.Decoder(seed.DecoderLayer(d, cp(attn), cp(attn), cp(ff), 0.1), c["decoder_layers"]),
        torch.nn.Sequential(seed.Embeddings(d, c["src_vocab_size"]), cp(position)),
        torch.nn.Sequential(seed.Embeddings(d, c["tgt_vocab_size"]), cp(position)),
        seed.Generator(d, c["tgt_vocab_size"]),
    )


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
                 and c.get("layer_norm") == "seed" and c.get("activation") == "relu")
    if not supported:
        print("only the seed's architecture can be loaded into the seed's code", file=sys.stderr)
        sys.exit(3)
    model = build(seed, c)
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
