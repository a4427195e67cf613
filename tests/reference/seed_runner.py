"""Runs the seed's make_model on cases and collects what attnscope's tests compare against."""
import importlib.util
import os
import sys
from pathlib import Path

SKIP = 77  # the exit code ctest and the C++ tests read as "reference unavailable"

try:
    import numpy  # noqa: F401  (safetensors_np's)
    import torch
except ImportError as e:  # the scripts import this module first, so a missing package is a skip, not a crash
    print(f"{e.name} for Python is not installed (Debian's python3-torch and python3-numpy)", file=sys.stderr)
    sys.exit(SKIP)


def import_reference(name, seed_dir=None):
    """The seed's module `name` (seed_transformer, seed_rnn). It is kept beside this file; --seed-dir or
    ATTNSCOPE_SEED_DIR names another copy (and a folder without one shows how the tests report a missing
    reference: skipped, with the reason)."""
    seed_dir = seed_dir or os.environ.get("ATTNSCOPE_SEED_DIR")
    d = Path(seed_dir) if seed_dir else Path(__file__).resolve().parent
    path = d / f"{name}.py"
    if not path.exists():
        print(f"seed reference not found at {path}", file=sys.stderr)
        sys.exit(SKIP)
    spec = importlib.util.spec_from_file_location(name, path)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def import_seed(seed_dir=None):
    return import_reference("seed_transformer", seed_dir)


def run_cases(seed, model, cases, pad=0):
    out = []
    for case in cases:
        src = torch.LongTensor([case["src_ids"]])
        tgt = torch.LongTensor([case["tgt_ids"]])
        src_mask = (src != pad).unsqueeze(-2)
        tgt_mask = (tgt != pad).unsqueeze(-2) & seed.subsequent_mask(tgt.size(-1)).type_as(src_mask)
        with torch.no_grad():
            memory = model.encode(src, src_mask)
            hidden = model.decode(memory, src_mask, tgt, tgt_mask)
            logp = model.generator(hidden)[0]
        enc = [layer.self_attn.attn[0].tolist() for layer in model.encoder.layers]
        dec = [layer.self_attn.attn[0].tolist() for layer in model.decoder.layers]
        cross = [layer.src_attn.attn[0].tolist() for layer in model.decoder.layers]
        out.append({
            "src_ids": case["src_ids"], "tgt_ids": case["tgt_ids"],
            "encoder": enc, "decoder": dec, "cross": cross,
            "logprobs": logp.tolist(), "next_token_logprobs": logp[-1].tolist(),
        })
    return out
