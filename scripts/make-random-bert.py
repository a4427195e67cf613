#!/usr/bin/python3
"""A randomly initialised BERT-family model as a Hugging Face directory: BERT-base's shape by default
(12 post-norm layers, 12 heads, hidden 768, intermediate 3072, GELU, 512 positions, vocab_size 30522), the
file format and tensor names of BertForMaskedLM (bert.* and the masked-LM head cls.predictions.*), so a
BERT-sized encoder can be looked at and measured without downloading weights.

usage: make-random-bert.py OUT_DIR [--layers 12] [--heads 12] [--d-model 768] [--d-ff 3072]
                           [--positions 512] [--vocab-size 30522] [--no-head] [--seed 0] [--tokenizer DIR]

Writes OUT_DIR/config.json (BertConfig's keys), model.safetensors (float32) and tokenizer.json. The
tokenizer is a WordPiece one in bert-base-uncased's shape made from tests/data/tokenizer_json_strings.json
by tests/reference/make_wordpiece_tokenizer.py (its few thousand tokens; the ids up to vocab_size past them
show as <unused N>), or, with --tokenizer DIR, a real model's tokenizer.json (and tokenizer_config.json)
from DIR. The weights are normal with std 0.02 (BERT's initializer_range), norms 1 and 0, biases 0; the
same --seed gives the same file. Each file is written beside its final name and renamed into place.
Exit status 2 on bad arguments.
"""
import argparse
import importlib.util
import json
import math
import subprocess
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
_spec = importlib.util.spec_from_file_location("make_random_gpt2", HERE / "make-random-gpt2.py")
gpt2 = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(gpt2)  # the safetensors and atomic-write helpers

INIT_STD = 0.02


def bert_config(args):
    return {
        "_name_or_path": "random-bert", "architectures": ["BertModel" if args.no_head else "BertForMaskedLM"],
        "attention_probs_dropout_prob": 0.1, "hidden_act": "gelu", "hidden_dropout_prob": 0.1,
        "hidden_size": args.d_model, "initializer_range": INIT_STD, "intermediate_size": args.d_ff,
        "layer_norm_eps": 1e-12, "max_position_embeddings": args.positions, "model_type": "bert",
        "num_attention_heads": args.heads, "num_hidden_layers": args.layers, "pad_token_id": 0,
        "position_embedding_type": "absolute", "type_vocab_size": 2, "use_cache": True,
        "vocab_size": args.vocab_size,
    }


def tensor_plan(args):
    """[(name, shape, init)] in BertForMaskedLM's module order."""
    C, F, V = args.d_model, args.d_ff, args.vocab_size
    normal = ("normal", INIT_STD)

    def linear(name, rows, cols):
        return [(name + ".weight", (rows, cols), normal), (name + ".bias", (rows,), ("zeros",))]

    def norm(name):
        return [(name + ".weight", (C,), ("ones",)), (name + ".bias", (C,), ("zeros",))]

    plan = [("bert.embeddings.word_embeddings.weight", (V, C), normal),
            ("bert.embeddings.position_embeddings.weight", (args.positions, C), normal),
            ("bert.embeddings.token_type_embeddings.weight", (2, C), normal)] + norm("bert.embeddings.LayerNorm")
    for i in range(args.layers):
        p = f"bert.encoder.layer.{i}."
        for part in ("attention.self.query", "attention.self.key", "attention.self.value", "attention.output.dense"):
            plan += linear(p + part, C, C)
        plan += norm(p + "attention.output.LayerNorm") + linear(p + "intermediate.dense", F, C)
        plan += linear(p + "output.dense", C, F) + norm(p + "output.LayerNorm")
    if not args.no_head:
        plan += linear("cls.predictions.transform.dense", C, C) + norm("cls.predictions.transform.LayerNorm")
        plan.append(("cls.predictions.bias", (V,), ("zeros",)))
    return plan


def made_tokenizer():
    """tokenizer.json bytes in bert-base-uncased's shape, from the tokenizer test strings."""
    with tempfile.TemporaryDirectory() as tmp:
        subprocess.run([sys.executable, str(ROOT / "tests" / "reference" / "make_wordpiece_tokenizer.py"), tmp,
                        str(ROOT / "tests" / "data" / "tokenizer_json_strings.json"),
                        str(ROOT / "tests" / "data" / "gpt2_strings.json")], check=True, stdout=subprocess.DEVNULL)
        return (Path(tmp) / "tokenizer.json").read_bytes()


def main():
    ap = argparse.ArgumentParser(description="Writes a randomly initialised BERT model (Hugging Face directory: "
                                             "config.json, model.safetensors, tokenizer.json).")
    ap.add_argument("out", metavar="OUT_DIR", help="directory to write (created if missing)")
    ap.add_argument("--layers", type=int, default=12, help="num_hidden_layers (default 12)")
    ap.add_argument("--heads", type=int, default=12, help="num_attention_heads (default 12)")
    ap.add_argument("--d-model", type=int, default=768, help="hidden_size (default 768)")
    ap.add_argument("--d-ff", type=int, default=3072, help="intermediate_size (default 3072)")
    ap.add_argument("--positions", type=int, default=512, help="max_position_embeddings (default 512)")
    ap.add_argument("--vocab-size", type=int, default=30522, help="vocab_size (default 30522)")
    ap.add_argument("--no-head", action="store_true", help="a bare BertModel, without the masked-LM head")
    ap.add_argument("--seed", type=int, default=0, help="seed of the weights (default 0)")
    ap.add_argument("--tokenizer", type=Path, help="directory holding a model's tokenizer.json to use instead")
    args = ap.parse_args()
    for flag in ("layers", "heads", "d_model", "d_ff", "positions", "vocab_size"):
        if getattr(args, flag) < 1:
            ap.error(f"--{flag.replace('_', '-')} must be at least 1")
    if args.d_model % args.heads:
        ap.error("--d-model must split into --heads heads")
    if not 0 <= args.seed < 2 ** 63:
        ap.error("--seed must be in 0..2^63-1")

    tok_config = None
    if args.tokenizer:
        try:
            tok_text = (args.tokenizer / "tokenizer.json").read_bytes()
        except OSError as e:
            gpt2.fail(f"cannot read {args.tokenizer / 'tokenizer.json'}: {e.strerror}")
        config_path = args.tokenizer / "tokenizer_config.json"
        tok_config = config_path.read_bytes() if config_path.is_file() else None
    else:
        tok_text = made_tokenizer()
    out = Path(args.out)
    try:
        out.mkdir(parents=True, exist_ok=True)
    except OSError as e:
        gpt2.fail(f"cannot create {out}: {e.strerror}")
    plan = tensor_plan(args)
    params = sum(math.prod(shape) for _, shape, _ in plan)
    print(f"random BERT: {args.layers} layers, {args.heads} heads, d_model {args.d_model}, d_ff {args.d_ff}, "
          f"vocabulary {args.vocab_size}, {'no head, ' if args.no_head else ''}{params:,} parameters, "
          f"seed {args.seed}")
    try:
        config = json.dumps(bert_config(args), indent=2) + "\n"
        gpt2.write_atomically(out / "config.json", lambda f: f.write(config.encode()))
        gpt2.write_atomically(out / "tokenizer.json", lambda f: f.write(tok_text))
        if tok_config:
            gpt2.write_atomically(out / "tokenizer_config.json", lambda f: f.write(tok_config))
        gpt2.write_safetensors(out / "model.safetensors", plan, args.seed)
    except OSError as e:
        gpt2.fail(f"cannot write {e.filename or out}: {e.strerror or e}")


if __name__ == "__main__":
    main()
