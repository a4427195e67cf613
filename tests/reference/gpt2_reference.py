"""A tiny random GPT-2 in Hugging Face's directory format, and what GPT-2 computes on it.

usage: gpt2_reference.py OUT_DIR [--dtype F32|F16|BF16] [--mask F32|U8|BOOL|none] [--prefix] [--ids 263,...]

Writes OUT_DIR/config.json (GPT2Config's keys), model.safetensors (transformers' tensor names, Conv1D
weights stored (in, out), the causal-mask buffers attn.bias / attn.masked_bias older transformers versions
saved: F32 in the original conversion, then U8, then BOOL; newer ones leave them out), vocab.json and
merges.txt, and OUT_DIR/reference.json:
  {"ids": [T], "logits": [T][V], "logprobs": [T][V], "attention": [L][H][T][T],
   "lens": [point][T][V], "attribution": [T × {"position", "token", "logit", "components": {name: value}}]}
("lens": the residual stream after the embeddings and after each attention and MLP, read through ln_f and
the unembedding: the logit lens; "attribution": at each position, the most likely token's logit split into
the embeddings, each head's output through its rows of c_proj, c_proj's bias and each MLP's output, every
part through ln_f frozen at the final stream's scale, and ln_f's bias: direct logit attribution)
computed in float64 from the stored weights by the GPT-2 below, written from the published design (pre-LN
blocks, causal self-attention scaled by 1/sqrt(head size), gelu's tanh approximation, learned positions,
output tied to wte). --prefix names the tensors as GPT2LMHeadModel saves them ("transformer.h.0...") and
adds lm_head.weight (a copy of wte). Exit status 77 when torch is missing.
"""
import argparse
import json
import math
import struct
import sys
from pathlib import Path

try:
    import torch
except ImportError:
    print("python3-torch is not installed", file=sys.stderr)
    sys.exit(77)

N_EMBD, N_LAYER, N_HEAD, N_POSITIONS = 32, 2, 4, 16
MERGES = [("Ġ", "t"), ("h", "e"), ("Ġt", "he"), ("i", "n"), ("Ġ", "a"), ("e", "r"), ("Ġ", "w")]
EOT = "<|endoftext|>"


def bytes_to_unicode():
    """GPT-2's printable stand-ins for the 256 bytes, in GPT-2's vocabulary order."""
    bs = list(range(ord("!"), ord("~") + 1)) + list(range(ord("¡"), ord("¬") + 1)) + \
        list(range(ord("®"), ord("ÿ") + 1))
    cs = bs[:]
    n = 0
    for b in range(256):
        if b not in bs:
            bs.append(b)
            cs.append(256 + n)
            n += 1
    return [chr(c) for c in cs]


def vocabulary():
    tokens = bytes_to_unicode() + [a + b for a, b in MERGES] + [EOT]
    return {t: i for i, t in enumerate(tokens)}


def random_weights(vocab_size, gen):
    C, F = N_EMBD, 4 * N_EMBD

    def rnd(*shape, std=0.3, mean=0.0):
        return torch.randn(*shape, generator=gen) * std + mean

    w = {"wte.weight": rnd(vocab_size, C), "wpe.weight": rnd(N_POSITIONS, C, std=0.1)}
    for i in range(N_LAYER):
        p = f"h.{i}."
        for ln in ("ln_1", "ln_2"):
            w[p + ln + ".weight"] = rnd(C, std=0.1, mean=1.0)
            w[p + ln + ".bias"] = rnd(C, std=0.1)
        # Conv1D: weight (in, out), y = x @ weight + bias.
        for name, (n_in, n_out) in {"attn.c_attn": (C, 3 * C), "attn.c_proj": (C, C),
                                    "mlp.c_fc": (C, F), "mlp.c_proj": (F, C)}.items():
            w[p + name + ".weight"] = rnd(n_in, n_out, std=1.0 / math.sqrt(n_in))
            w[p + name + ".bias"] = rnd(n_out, std=0.1)
    w["ln_f.weight"] = rnd(C, std=0.1, mean=1.0)
    w["ln_f.bias"] = rnd(C, std=0.1)
    return w


def stored(t, dtype):
    """The tensor as the file holds it: (safetensors dtype, raw bytes, the values read back as float64)."""
    t = t.to(torch.float32).contiguous()
    if dtype == "F16":
        h = t.to(torch.float16)
        return "F16", h.numpy().tobytes(), h.to(torch.float64)
    if dtype == "BF16":
        b = t.to(torch.bfloat16)
        return "BF16", b.view(torch.int16).numpy().tobytes(), b.to(torch.float64)
    return "F32", t.numpy().tobytes(), t.to(torch.float64)


def write_safetensors(path, entries):
    """entries: name -> (dtype, shape, raw bytes). Header length, JSON header, data, as the format says."""
    header, offset = {}, 0
    for name in sorted(entries):
        dtype, shape, raw = entries[name]
        header[name] = {"dtype": dtype, "shape": list(shape), "data_offsets": [offset, offset + len(raw)]}
        offset += len(raw)
    header["__metadata__"] = {"format": "pt"}
    h = json.dumps(header, separators=(",", ":")).encode()
    h += b" " * (-len(h) % 8)
    with open(path, "wb") as f:
        f.write(struct.pack("<Q", len(h)) + h)
        for name in sorted(entries):
            f.write(entries[name][2])


def gpt2_forward(w, ids, eps, stream=None, parts=None):
    """GPT-2 on one sequence: (logits (T, V), [per layer (H, T, T) attention probabilities]). With a list for
    stream, the residual stream (T, C) after the embeddings and after each attention and MLP is appended. With
    a dict for parts, what wrote the stream, (T, C) each: "embed", each head's output through its rows of
    c_proj ("L.attn.H"), c_proj's bias ("L.attn.bias"), each MLP's output ("L.mlp")."""
    record = parts.__setitem__ if parts is not None else (lambda _k, _v: None)
    T, C, H = len(ids), N_EMBD, N_HEAD
    hs = C // H
    ln = torch.nn.functional.layer_norm
    x = w["wte.weight"][ids] + w["wpe.weight"][:T]  # (T, C)
    causal = torch.tril(torch.ones(T, T, dtype=torch.bool))
    attention = []
    keep = stream.append if stream is not None else (lambda _x: None)
    keep(x)
    record("embed", x)
    for i in range(N_LAYER):
        p = f"h.{i}."
        a = ln(x, (C,), w[p + "ln_1.weight"], w[p + "ln_1.bias"], eps)
        q, k, v = (a @ w[p + "attn.c_attn.weight"] + w[p + "attn.c_attn.bias"]).split(C, dim=-1)
        q, k, v = (t.view(T, H, hs).transpose(0, 1) for t in (q, k, v))  # (H, T, hs)
        scores = (q @ k.transpose(-1, -2)) / math.sqrt(hs)  # (H, T, T)
        probs = scores.masked_fill(~causal, float("-inf")).softmax(-1)
        attention.append(probs)
        y = (probs @ v).transpose(0, 1).reshape(T, C)  # (T, C)
        x = x + y @ w[p + "attn.c_proj.weight"] + w[p + "attn.c_proj.bias"]
        keep(x)
        for h in range(H):  # Conv1D: input rows h·hs … (h+1)·hs of c_proj read head h's output
            rows = slice(h * hs, (h + 1) * hs)
            record(f"{i}.attn.{h}", y[:, rows] @ w[p + "attn.c_proj.weight"][rows])
        record(f"{i}.attn.bias", w[p + "attn.c_proj.bias"].expand(T, C))
        m = ln(x, (C,), w[p + "ln_2.weight"], w[p + "ln_2.bias"], eps)
        m = m @ w[p + "mlp.c_fc.weight"] + w[p + "mlp.c_fc.bias"]
        m = 0.5 * m * (1.0 + torch.tanh(math.sqrt(2.0 / math.pi) * (m + 0.044715 * m ** 3)))
        mlp = m @ w[p + "mlp.c_proj.weight"] + w[p + "mlp.c_proj.bias"]
        x = x + mlp
        keep(x)
        record(f"{i}.mlp", mlp)
    x = ln(x, (C,), w["ln_f.weight"], w["ln_f.bias"], eps)
    return x @ w["wte.weight"].T, attention


def gpt2_lens(w, stream, eps):
    """The logit lens: each point of the stream through ln_f and the tied unembedding, as log-probabilities."""
    ln = torch.nn.functional.layer_norm
    return [(ln(x, (N_EMBD,), w["ln_f.weight"], w["ln_f.bias"], eps) @ w["wte.weight"].T).log_softmax(-1)
            for x in stream]


def gpt2_attribution(w, parts, final, eps):
    """Direct logit attribution at every position for the most likely token: each part through ln_f frozen
    at the final stream's own mean and variance (a ⊙ (c − mean c) / sqrt(var x + eps)), ln_f's bias a part
    of its own, each read through the tied unembedding's row of the token."""
    a, b = w["ln_f.weight"], w["ln_f.bias"]
    scale = (final.var(-1, unbiased=False, keepdim=True) + eps).sqrt()  # (T, 1)
    normed = {k: a * (v - v.mean(-1, keepdim=True)) / scale for k, v in parts.items()}
    normed["final_norm"] = b.expand_as(final)
    logits = torch.nn.functional.layer_norm(final, (N_EMBD,), a, b, eps) @ w["wte.weight"].T  # (T, V)
    out = []
    for t in range(final.size(0)):
        token = int(logits[t].argmax())
        row = w["wte.weight"][token]
        out.append({"position": t, "token": token, "logit": float(logits[t][token]),
                    "components": {k: float(v[t] @ row) for k, v in normed.items()}})
    return out


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("out")
    ap.add_argument("--dtype", choices=["F32", "F16", "BF16"], default="F32")
    ap.add_argument("--mask", choices=["F32", "U8", "BOOL", "none"], default="F32")
    ap.add_argument("--prefix", action="store_true")
    ap.add_argument("--ids", default="")
    args = ap.parse_args()
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)

    vocab = vocabulary()
    eot = vocab[EOT]
    eps = 1e-5
    config = {
        "_name_or_path": "tiny-gpt2-reference", "activation_function": "gelu_new",
        "architectures": ["GPT2LMHeadModel"], "attn_pdrop": 0.1, "bos_token_id": eot, "embd_pdrop": 0.1,
        "eos_token_id": eot, "initializer_range": 0.02, "layer_norm_epsilon": eps, "model_type": "gpt2",
        "n_ctx": N_POSITIONS, "n_embd": N_EMBD, "n_head": N_HEAD, "n_inner": None, "n_layer": N_LAYER,
        "n_positions": N_POSITIONS, "reorder_and_upcast_attn": False, "resid_pdrop": 0.1,
        "scale_attn_by_inverse_layer_idx": False, "scale_attn_weights": True, "summary_activation": None,
        "summary_first_dropout": 0.1, "summary_proj_to_labels": True, "summary_type": "cls_index",
        "summary_use_proj": True, "task_specific_params": {"text-generation": {"do_sample": True, "max_length": 50}},
        "torch_dtype": "float32", "transformers_version": "4.30.2", "use_cache": True, "vocab_size": len(vocab),
    }
    (out / "config.json").write_text(json.dumps(config, indent=2) + "\n")
    (out / "vocab.json").write_text(json.dumps(vocab, ensure_ascii=False), encoding="utf-8")
    (out / "merges.txt").write_text("#version: 0.2\n" + "".join(f"{a} {b}\n" for a, b in MERGES),
                                    encoding="utf-8")

    gen = torch.Generator().manual_seed(2019)
    entries, w = {}, {}
    prefix = "transformer." if args.prefix else ""
    for name, t in random_weights(len(vocab), gen).items():
        dtype, raw, back = stored(t, args.dtype)
        entries[prefix + name] = (dtype, t.shape, raw)
        w[name] = back
    for i in range(N_LAYER if args.mask != "none" else 0):
        mask = torch.tril(torch.ones(N_POSITIONS, N_POSITIONS)).view(1, 1, N_POSITIONS, N_POSITIONS)
        mask = mask if args.mask == "F32" else mask.to(torch.uint8)  # BOOL is one byte of 0 or 1, as U8
        entries[f"{prefix}h.{i}.attn.bias"] = (args.mask, mask.shape, mask.numpy().tobytes())
        entries[f"{prefix}h.{i}.attn.masked_bias"] = ("F32", (), torch.tensor(-1e4).numpy().tobytes())
    if args.prefix:
        entries["lm_head.weight"] = entries["transformer.wte.weight"]
    write_safetensors(out / "model.safetensors", entries)

    ids = [int(s) for s in args.ids.split(",")] if args.ids else [eot, 5, 260, 71, 258, 68, 262, 83, 261, 0]
    stream, parts = [], {}
    with torch.no_grad():
        logits, attention = gpt2_forward(w, ids, eps, stream, parts)
        lens = gpt2_lens(w, stream, eps)
        attribution = gpt2_attribution(w, parts, stream[-1], eps)
    ref = {"ids": ids, "logits": logits.tolist(), "logprobs": logits.log_softmax(-1).tolist(),
           "attention": [a.tolist() for a in attention], "lens": [p.tolist() for p in lens],
           "attribution": attribution}
    (out / "reference.json").write_text(json.dumps(ref))


if __name__ == "__main__":
    main()
