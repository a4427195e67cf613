"""Builds the seed's make_model(n=2, d_model=64, h=4, d_ff=128) with a fixed seed, saves it as a model
directory (config.json, vocab.json, model.safetensors) and writes reference.json for three cases."""
import argparse
import json
from pathlib import Path

import seed_runner  # first: it turns a missing PyTorch or NumPy into a skip
import torch  # noqa: E402

import safetensors_np  # noqa: E402

CASES = [
    {"src_ids": [1, 5, 6, 7, 8, 2], "tgt_ids": [1, 9, 10, 11]},
    {"src_ids": [1, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 2], "tgt_ids": [1, 15, 16, 17, 18, 19, 4, 5]},
    {"src_ids": [1, 5, 6, 7, 2, 0, 0, 0], "tgt_ids": [1, 8, 9]},  # source padded with <pad> = 0
]

CONFIG = {"name": "seed-parity", "architecture": "encoder_decoder", "encoder_layers": 2, "decoder_layers": 2,
          "d_model": 64, "heads": 4, "d_ff": 128, "src_vocab_size": 20, "tgt_vocab_size": 20, "max_len": 5000,
          "positional_encoding": "sinusoidal", "layer_norm": "seed", "norm_eps": 1e-6, "activation": "relu",
          "scale_embeddings": True, "share_embeddings": False, "tie_output": False,
          "tokenizer": {"type": "char", "src_vocab": "vocab.json", "tgt_vocab": "vocab.json"}}


def write_model(seed, out, torch_seed):
    """The seed's make_model with a fixed torch seed, written to out as a model directory; returns it."""
    out.mkdir(parents=True, exist_ok=True)
    torch.manual_seed(torch_seed)
    model = seed.make_model(20, 20, n=2, d_model=64, d_ff=128, h=4)
    model.eval()
    state = {k: v.detach().contiguous().numpy() for k, v in model.state_dict().items()}
    safetensors_np.save(out / "model.safetensors", state, {"format": "pt"})
    write_config(out, CONFIG)
    return model, state


def write_config(out, config):
    """config.json and the vocabulary the cases' ids are spelled in (the four specials and a–p)."""
    (out / "config.json").write_text(json.dumps(config, indent=2) + "\n")
    vocab = {"<pad>": 0, "<bos>": 1, "<eos>": 2, "<unk>": 3}
    vocab.update({chr(ord("a") + i): 4 + i for i in range(16)})
    (out / "vocab.json").write_text(json.dumps(vocab, indent=1) + "\n")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--out", required=True)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--seed-dir")
    args = ap.parse_args()
    seed = seed_runner.import_seed(args.seed_dir)
    out = Path(args.out)
    model, state = write_model(seed, out, args.seed)
    ref = {"cases": seed_runner.run_cases(seed, model, CASES)}
    (out / "reference.json").write_text(json.dumps(ref))
    print(f"wrote {len(state)} tensors and {len(CASES)} cases to {out}")


if __name__ == "__main__":
    main()
