"""A tiny random Llama-family model in Hugging Face's directory format, and what it computes.

usage: llama_reference.py OUT_DIR [--type llama|mistral|qwen2] [--kv-heads 2] [--tied] [--attention-bias]
                          [--mlp-bias] [--scaling none|linear|llama3] [--dtype F32|F16|BF16] [--no-prefix]
                          [--inv-freq] [--tokenizer-json] [--ids 263,...]

Writes OUT_DIR/config.json (the keys of transformers' LlamaConfig, MistralConfig or Qwen2Config),
model.safetensors (LlamaForCausalLM's tensor names: model.embed_tokens, model.layers.N.self_attn.q_proj, …,
lm_head; --no-prefix drops "model.", --inv-freq adds the rotary tables older versions saved), vocab.json and
merges.txt (the tiny byte-level vocabulary of gpt2_reference.py; with --tokenizer-json the same as a
tokenizer.json of a byte-level BPE model instead), and OUT_DIR/reference.json:
  {"ids": [T], "logits": [T][V], "logprobs": [T][V], "attention": [L][H][T][T], "lens": [point][T][V],
   "attribution": [T × {"position", "token", "logit", "components": {name: value}}]}
("lens": the residual stream after the embeddings and after each attention and MLP, read through the final
RMSNorm and the output projection: the logit lens; "attribution": each position's most likely token's logit
split into the embeddings, each head through its columns of o_proj, o_proj's bias and each MLP, every part
through the final RMSNorm frozen at the stream's scale) computed in float64 from the stored weights by the
network below, written from the family's published
design: RMSNorm before each block, rotary positions where dimension i turns with i + hs/2 at angle
pos * theta_i (theta_i = rope_theta^(-2i/hs), stretched as rope_scaling says), grouped-query attention
(query head h reads key/value head h // (H / KV)), causal softmax(QK^T / sqrt(hs)), a gated feed-forward
down(silu(gate(x)) * up(x)), a final RMSNorm and the output projection (lm_head, or embed_tokens when tied).
Qwen2's q, k and v have biases. Exit status 77 when torch is missing.
"""
import argparse
import json
import math
import sys
from pathlib import Path

try:
    import torch
except ImportError:
    print("python3-torch is not installed", file=sys.stderr)
    sys.exit(77)

from gpt2_reference import EOT, MERGES, stored, vocabulary, write_safetensors

C, LAYERS, HEADS, FF, POSITIONS = 32, 2, 4, 48, 64
HS = C // HEADS


def thetas(base, scaling):
    """Each dimension pair's angle per position, as the config's rope_theta and rope_scaling define it."""
    theta = [base ** (-2.0 * i / HS) for i in range(HS // 2)]
    if scaling is None:
        return theta
    if scaling.get("rope_type", scaling.get("type")) == "linear":
        return [t / scaling["factor"] for t in theta]
    # llama3: a pair slower than the original context / low_freq_factor is slowed by factor, one faster than
    # the original context / high_freq_factor is kept, and one in between blended by its wavelength.
    f, lo, hi = scaling["factor"], scaling["low_freq_factor"], scaling["high_freq_factor"]
    original = scaling["original_max_position_embeddings"]
    out = []
    for t in theta:
        wavelength = 2 * math.pi / t
        if wavelength > original / lo:
            out.append(t / f)
        elif wavelength < original / hi:
            out.append(t)
        else:
            s = (original / wavelength - lo) / (hi - lo)
            out.append((1 - s) * t / f + s * t)
    return out


def rms_norm(x, weight, eps):
    return weight * x / torch.sqrt((x * x).mean(-1, keepdim=True) + eps)


def turn(x, angles):
    """x (H, T, hs): dimension i and i + hs/2 turned by angles (T, hs/2)."""
    a, b = x[..., :HS // 2], x[..., HS // 2:]
    c, s = torch.cos(angles), torch.sin(angles)
    return torch.cat([a * c - b * s, a * s + b * c], dim=-1)


def forward(w, ids, cfg, stream=None, parts=None):
    """The network on one sequence: (logits (T, V), [per layer (H, T, T) attention probabilities]). With a
    list for stream, the residual stream (T, C) after the embeddings and after each attention and MLP is
    appended. With a dict for parts, what wrote the stream, (T, C) each: "embed", each head's output through
    its columns of o_proj ("L.attn.H"), o_proj's bias where it has one ("L.attn.bias"), each MLP's output
    ("L.mlp")."""
    record = parts.__setitem__ if parts is not None else (lambda _k, _v: None)
    T, H, KV = len(ids), HEADS, cfg["num_key_value_heads"]
    eps = cfg["rms_norm_eps"]
    angles = torch.arange(T, dtype=torch.float64)[:, None] * \
        torch.tensor(thetas(cfg["rope_theta"], cfg.get("rope_scaling")), dtype=torch.float64)[None, :]
    causal = torch.tril(torch.ones(T, T, dtype=torch.bool))
    x = w["model.embed_tokens.weight"][ids]  # (T, C)
    attention = []
    keep = stream.append if stream is not None else (lambda _x: None)
    keep(x)
    record("embed", x)

    def lin(name, t):
        y = t @ w[name + ".weight"].T
        return y + w[name + ".bias"] if name + ".bias" in w else y

    for i in range(LAYERS):
        p = f"model.layers.{i}."
        a = rms_norm(x, w[p + "input_layernorm.weight"], eps)
        q = lin(p + "self_attn.q_proj", a).view(T, H, HS).transpose(0, 1)  # (H, T, hs)
        k = lin(p + "self_attn.k_proj", a).view(T, KV, HS).transpose(0, 1)  # (KV, T, hs)
        v = lin(p + "self_attn.v_proj", a).view(T, KV, HS).transpose(0, 1)
        q, k = turn(q, angles), turn(k, angles)
        group = H // KV
        k = torch.stack([k[h // group] for h in range(H)])  # (H, T, hs)
        v = torch.stack([v[h // group] for h in range(H)])
        scores = q @ k.transpose(-1, -2) / math.sqrt(HS)
        probs = scores.masked_fill(~causal, float("-inf")).softmax(-1)  # (H, T, T)
        attention.append(probs)
        y = (probs @ v).transpose(0, 1).reshape(T, C)
        x = x + lin(p + "self_attn.o_proj", y)
        keep(x)
        for h in range(H):  # o_proj's columns h·hs … (h+1)·hs read head h's output
            cols = slice(h * HS, (h + 1) * HS)
            record(f"{i}.attn.{h}", y[:, cols] @ w[p + "self_attn.o_proj.weight"][:, cols].T)
        if p + "self_attn.o_proj.bias" in w:
            record(f"{i}.attn.bias", w[p + "self_attn.o_proj.bias"].expand(T, C))
        m = rms_norm(x, w[p + "post_attention_layernorm.weight"], eps)
        g = lin(p + "mlp.gate_proj", m)
        mlp = lin(p + "mlp.down_proj", g * torch.sigmoid(g) * lin(p + "mlp.up_proj", m))
        x = x + mlp
        keep(x)
        record(f"{i}.mlp", mlp)
    out = w["model.embed_tokens.weight"] if cfg["tie_word_embeddings"] else w["lm_head.weight"]
    return rms_norm(x, w["model.norm.weight"], eps) @ out.T, attention


def lens(w, stream, cfg):
    """The logit lens: each point of the stream through the final RMSNorm and the output projection, as
    log-probabilities."""
    out = w["model.embed_tokens.weight"] if cfg["tie_word_embeddings"] else w["lm_head.weight"]
    return [(rms_norm(x, w["model.norm.weight"], cfg["rms_norm_eps"]) @ out.T).log_softmax(-1) for x in stream]


def attribution(w, parts, final, cfg):
    """Direct logit attribution at every position for the most likely token: each part through the final
    RMSNorm frozen at the final stream's own root mean square (a ⊙ c / sqrt(mean x² + eps)), each read through
    the output projection's row of the token (an untied lm_head has no bias)."""
    out = w["model.embed_tokens.weight"] if cfg["tie_word_embeddings"] else w["lm_head.weight"]
    a = w["model.norm.weight"]
    scale = (final.pow(2).mean(-1, keepdim=True) + cfg["rms_norm_eps"]).sqrt()  # (T, 1)
    logits = rms_norm(final, a, cfg["rms_norm_eps"]) @ out.T  # (T, V)
    result = []
    for t in range(final.size(0)):
        token = int(logits[t].argmax())
        result.append({"position": t, "token": token, "logit": float(logits[t][token]),
                       "components": {k: float((a * v[t] / scale[t]) @ out[token]) for k, v in parts.items()}})
    return result


def config_for(args, vocab):
    eot = vocab[EOT]
    cfg = {
        "architectures": [{"llama": "LlamaForCausalLM", "mistral": "MistralForCausalLM",
                           "qwen2": "Qwen2ForCausalLM"}[args.type]],
        "model_type": args.type, "_name_or_path": f"tiny-{args.type}-reference", "vocab_size": len(vocab),
        "hidden_size": C, "intermediate_size": FF, "num_hidden_layers": LAYERS, "num_attention_heads": HEADS,
        "num_key_value_heads": args.kv_heads, "hidden_act": "silu", "max_position_embeddings": POSITIONS,
        "initializer_range": 0.02, "rms_norm_eps": 1e-5, "use_cache": True, "bos_token_id": eot,
        "eos_token_id": eot, "tie_word_embeddings": args.tied, "rope_theta": 500000.0 if args.scaling else 10000.0,
        "rope_scaling": None, "attention_dropout": 0.0, "torch_dtype": "float32", "transformers_version": "4.44.0",
    }
    if args.type == "llama":
        cfg.update({"attention_bias": args.attention_bias, "mlp_bias": args.mlp_bias, "pretraining_tp": 1,
                    "head_dim": HS})
    if args.type == "mistral":
        cfg["sliding_window"] = 32
    if args.type == "qwen2":
        cfg.update({"use_sliding_window": False, "sliding_window": 4096, "max_window_layers": 21})
    if args.scaling == "linear":
        cfg["rope_scaling"] = {"type": "linear", "factor": 4.0}
    elif args.scaling == "llama3":
        cfg["rope_scaling"] = {"rope_type": "llama3", "factor": 8.0, "low_freq_factor": 1.0,
                               "high_freq_factor": 4.0, "original_max_position_embeddings": 256}
    return cfg


def random_weights(cfg, gen):
    V, KV = cfg["vocab_size"], cfg["num_key_value_heads"] * HS

    def rnd(*shape, std=0.3, mean=0.0):
        return torch.randn(*shape, generator=gen) * std + mean

    qkv_bias = cfg["model_type"] == "qwen2" or cfg.get("attention_bias", False)
    w = {"model.embed_tokens.weight": rnd(V, C), "model.norm.weight": rnd(C, std=0.1, mean=1.0)}
    for i in range(LAYERS):
        p = f"model.layers.{i}."
        w[p + "input_layernorm.weight"] = rnd(C, std=0.1, mean=1.0)
        w[p + "post_attention_layernorm.weight"] = rnd(C, std=0.1, mean=1.0)
        for name, rows in (("q_proj", C), ("k_proj", KV), ("v_proj", KV), ("o_proj", C)):
            w[p + f"self_attn.{name}.weight"] = rnd(rows, C, std=1.0 / math.sqrt(C))
            if (name != "o_proj" and qkv_bias) or (name == "o_proj" and cfg.get("attention_bias", False)):
                w[p + f"self_attn.{name}.bias"] = rnd(rows, std=0.1)
        for name, (rows, cols) in (("gate_proj", (FF, C)), ("up_proj", (FF, C)), ("down_proj", (C, FF))):
            w[p + f"mlp.{name}.weight"] = rnd(rows, cols, std=1.0 / math.sqrt(cols))
            if cfg.get("mlp_bias", False):
                w[p + f"mlp.{name}.bias"] = rnd(rows, std=0.1)
    if not cfg["tie_word_embeddings"]:
        w["lm_head.weight"] = rnd(V, C, std=1.0 / math.sqrt(C))
    return w


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("out")
    ap.add_argument("--type", choices=["llama", "mistral", "qwen2"], default="llama")
    ap.add_argument("--kv-heads", type=int, default=2)
    ap.add_argument("--tied", action="store_true")
    ap.add_argument("--attention-bias", action="store_true")
    ap.add_argument("--mlp-bias", action="store_true")
    ap.add_argument("--scaling", choices=["none", "linear", "llama3"], default="none")
    ap.add_argument("--dtype", choices=["F32", "F16", "BF16"], default="F32")
    ap.add_argument("--no-prefix", action="store_true")
    ap.add_argument("--inv-freq", action="store_true")
    ap.add_argument("--tokenizer-json", action="store_true")
    ap.add_argument("--ids", default="")
    args = ap.parse_args()
    args.scaling = None if args.scaling == "none" else args.scaling
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)

    vocab = vocabulary()
    cfg = config_for(args, vocab)
    (out / "config.json").write_text(json.dumps(cfg, indent=2) + "\n")
    if args.tokenizer_json:
        eot = vocab[EOT]
        tokenizer = {
            "version": "1.0", "truncation": None, "padding": None,
            "added_tokens": [{"id": eot, "content": EOT, "single_word": False, "lstrip": False, "rstrip": False,
                              "normalized": False, "special": True}],
            "normalizer": None,
            "pre_tokenizer": {"type": "ByteLevel", "add_prefix_space": False, "trim_offsets": True, "use_regex": True},
            "post_processor": {"type": "TemplateProcessing",
                               "single": [{"SpecialToken": {"id": EOT, "type_id": 0}}, {"Sequence": {"id": "A", "type_id": 0}}],
                               "pair": [{"SpecialToken": {"id": EOT, "type_id": 0}}, {"Sequence": {"id": "A", "type_id": 0}},
                                        {"Sequence": {"id": "B", "type_id": 1}}],
                               "special_tokens": {EOT: {"id": EOT, "ids": [eot], "tokens": [EOT]}}},
            "decoder": {"type": "ByteLevel", "add_prefix_space": True, "trim_offsets": True, "use_regex": True},
            "model": {"type": "BPE", "dropout": None, "unk_token": None, "continuing_subword_prefix": "",
                      "end_of_word_suffix": "", "fuse_unk": False, "byte_fallback": False, "ignore_merges": False,
                      "vocab": vocab, "merges": [f"{a} {b}" for a, b in MERGES]},
        }
        (out / "tokenizer.json").write_text(json.dumps(tokenizer, ensure_ascii=False), encoding="utf-8")
    else:
        (out / "vocab.json").write_text(json.dumps(vocab, ensure_ascii=False), encoding="utf-8")
        (out / "merges.txt").write_text("#version: 0.2\n" + "".join(f"{a} {b}\n" for a, b in MERGES),
                                        encoding="utf-8")

    gen = torch.Generator().manual_seed(2023)
    entries, w = {}, {}
    for name, t in random_weights(cfg, gen).items():
        dtype, raw, back = stored(t, args.dtype)
        saved = name[len("model."):] if args.no_prefix and name.startswith("model.") else name
        entries[saved] = (dtype, t.shape, raw)
        w[name] = back
    if args.inv_freq:
        inv = torch.tensor(thetas(cfg["rope_theta"], cfg["rope_scaling"]), dtype=torch.float32)
        for i in range(LAYERS):
            prefix = "" if args.no_prefix else "model."
            entries[f"{prefix}layers.{i}.self_attn.rotary_emb.inv_freq"] = ("F32", inv.shape, inv.numpy().tobytes())
    write_safetensors(out / "model.safetensors", entries)

    eot = vocab[EOT]
    ids = [int(s) for s in args.ids.split(",")] if args.ids else [eot, 5, 260, 71, 258, 68, 262, 83, 261, 0,
                                                                  40, 41, 263, 17, 99, 3]
    stream, parts = [], {}
    with torch.no_grad():
        logits, attention = forward(w, ids, cfg, stream, parts)
        readings = lens(w, stream, cfg)
        split = attribution(w, parts, stream[-1], cfg)
    ref = {"ids": ids, "logits": logits.tolist(), "logprobs": logits.log_softmax(-1).tolist(),
           "attention": [a.tolist() for a in attention], "lens": [r.tolist() for r in readings],
           "attribution": split}
    (out / "reference.json").write_text(json.dumps(ref))


if __name__ == "__main__":
    main()
