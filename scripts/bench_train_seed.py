"""Times the seed's PyTorch Transformer (tests/reference/seed_transformer.py) training on batches written by
`attnscope bench-train --batches`: the same model shape, optimizer, schedule, loss and thread count."""
import argparse
import json
import struct
import sys
import time
from pathlib import Path

import torch

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests" / "reference"))
import seed_runner  # noqa: E402


def read_batches(path):
    data = Path(path).read_bytes()
    pos = 0

    def take(n):
        nonlocal pos
        vals = struct.unpack_from(f"<{n}q", data, pos)
        pos += 8 * n
        return vals

    (count,) = take(1)
    batches = []
    for _ in range(count):
        rows, s, t = take(3)
        src = torch.tensor(take(rows * s), dtype=torch.long).view(rows, s)
        inp = torch.tensor(take(rows * t), dtype=torch.long).view(rows, t)
        lab = torch.tensor(take(rows * t), dtype=torch.long).view(rows, t)
        batches.append((src, inp, lab))
    return batches


def openblas_kernels():
    """The kernel set OpenBLAS chose (or was told to use with OPENBLAS_CORETYPE), as attnscope reports it."""
    import ctypes
    try:
        lib = ctypes.CDLL("libopenblas.so.0")
    except OSError:
        return "not in use"
    lib.openblas_get_corename.restype = ctypes.c_char_p
    return lib.openblas_get_corename().decode()


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--recipe", required=True)
    ap.add_argument("--batches", required=True)
    ap.add_argument("--warmup", type=int, default=5)
    ap.add_argument("--threads", type=int, required=True)
    args = ap.parse_args()
    torch.set_num_threads(args.threads)
    recipe = json.loads(Path(args.recipe).read_text())
    m = recipe["model"]
    if m.get("architecture", "encoder_decoder") != "encoder_decoder" or m["encoder_layers"] != m["decoder_layers"]:
        sys.exit("the seed's make_model builds equal encoder and decoder stacks; use such a recipe")
    batches = read_batches(args.batches)
    vocab = int(max(max(int(b[0].max()), int(b[1].max()), int(b[2].max())) for b in batches)) + 1
    seed = seed_runner.import_seed()
    torch.manual_seed(recipe.get("seed", 1))
    # No dropout: ours has none, so both do the same arithmetic.
    model = seed.make_model(vocab, vocab, n=m["encoder_layers"], d_model=m["d_model"], d_ff=m["d_ff"],
                            h=m["heads"], dropout=0.0)
    model.train()
    d, warm, factor = m["d_model"], recipe.get("warmup", 400), recipe.get("lr_factor", 1.0)
    opt = torch.optim.Adam(model.parameters(), lr=0.0, betas=(0.9, 0.98), eps=1e-9)
    pad = 0
    tokens, start = 0, None
    for step, (src, inp, lab) in enumerate(batches, start=1):
        if step == args.warmup + 1:
            start = time.perf_counter()
        for g in opt.param_groups:
            g["lr"] = factor * d ** -0.5 * min(step ** -0.5, step * warm ** -1.5)
        src_mask = (src != pad).unsqueeze(-2)
        tgt_mask = (inp != pad).unsqueeze(-2) & seed.subsequent_mask(inp.size(-1)).type_as(src_mask)
        out = model.decode(model.encode(src, src_mask), src_mask, inp, tgt_mask)
        logits = model.generator.proj(out)
        loss = torch.nn.functional.cross_entropy(logits.reshape(-1, logits.size(-1)), lab.reshape(-1),
                                                 ignore_index=pad,
                                                 label_smoothing=recipe.get("label_smoothing", 0.1))
        opt.zero_grad()
        loss.backward()
        torch.nn.utils.clip_grad_norm_(model.parameters(), recipe.get("clip_norm", 1.0))
        opt.step()
        if step > args.warmup:
            tokens += int((lab != pad).sum())
    secs = time.perf_counter() - start
    print(f"seed: {len(batches) - args.warmup} steps, {tokens} target tokens in {secs:.3f} s: "
          f"{tokens / secs:.0f} tokens/s ({torch.get_num_threads()} threads, OpenBLAS {openblas_kernels()})")


if __name__ == "__main__":
    main()
