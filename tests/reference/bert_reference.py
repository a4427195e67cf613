"""A tiny random BERT-family model in Hugging Face's directory format, and what it computes.

usage: bert_reference.py OUT_DIR [--type bert|roberta|distilbert] [--no-head] [--no-prefix] [--gamma-beta]
                         [--decoder-weight] [--vocab-txt] [--dtype F32|F16|BF16] [--ids 2,7,...]

Writes OUT_DIR/config.json (the keys of transformers' BertConfig, RobertaConfig or DistilBertConfig),
model.safetensors (BertForMaskedLM's tensor names: bert.embeddings.word_embeddings, bert.encoder.layer.N.
attention.self.query, ..., cls.predictions.transform.dense, cls.predictions.bias; RobertaForMaskedLM's
roberta.* and lm_head.*; DistilBertForMaskedLM's distilbert.transformer.layer.N.attention.q_lin, ...,
vocab_transform, vocab_layer_norm, vocab_projector; --no-head writes the bare model without the masked-LM
head but with BERT's pooler, --no-prefix drops the base model's prefix, --gamma-beta names BERT's norms
gamma and beta as the original release did, --decoder-weight also saves the head's tied decoder weight),
tokenizer.json (a small WordPiece vocabulary with a [CLS] $A [SEP] template for BERT and DistilBERT; a
byte-level BPE with <s> $A </s> for RoBERTa; --vocab-txt writes BERT's older vocab.txt and
tokenizer_config.json instead), and OUT_DIR/reference.json:
  {"ids": [T], "mask": row of the first mask id or -1, "logprobs": [T][V] (absent without the head),
   "attention": [L][H][T][T]}
computed in float64 from the stored weights by the network below, written from the family's published
design: word, position (RoBERTa's numbered from pad_token_id + 1) and token-type-0 embeddings summed and
layer-normed; in every layer a = LN(x + Attn(x)) and x = LN(a + W2 gelu(W1 a)) with unmasked
softmax(QK^T / sqrt(hs)) attention; the masked-LM head LN(gelu(W x)) times the word embeddings plus a bias.
Exit status 77 when torch is missing.
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

from gpt2_reference import MERGES, bytes_to_unicode, stored, write_safetensors

C, LAYERS, HEADS, FF, POSITIONS, TYPES = 32, 2, 4, 48, 24, 2
HS = C // HEADS
WORDS = ["the", "cat", "sat", "on", "mat", "dog", "ran", "##s", "##ed", "##ing", "big", "red", "."]


def wordpiece_vocab():
    specials = ["[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]"]
    letters = [chr(c) for c in range(ord("a"), ord("z") + 1)]
    return specials + letters + ["##" + c for c in letters] + WORDS


def wordpiece_tokenizer(tokens):
    ids = {t: i for i, t in enumerate(tokens)}
    added = [{"id": ids[t], "content": t, "single_word": False, "lstrip": False, "rstrip": False,
              "normalized": False, "special": True} for t in tokens[:5]]
    return {
        "version": "1.0", "truncation": None, "padding": None, "added_tokens": added,
        "normalizer": {"type": "BertNormalizer", "clean_text": True, "handle_chinese_chars": True,
                       "strip_accents": None, "lowercase": True},
        "pre_tokenizer": {"type": "BertPreTokenizer"},
        "post_processor": {"type": "TemplateProcessing",
                           "single": [{"SpecialToken": {"id": "[CLS]", "type_id": 0}},
                                      {"Sequence": {"id": "A", "type_id": 0}},
                                      {"SpecialToken": {"id": "[SEP]", "type_id": 0}}],
                           "pair": [{"SpecialToken": {"id": "[CLS]", "type_id": 0}},
                                    {"Sequence": {"id": "A", "type_id": 0}},
                                    {"SpecialToken": {"id": "[SEP]", "type_id": 0}},
                                    {"Sequence": {"id": "B", "type_id": 1}},
                                    {"SpecialToken": {"id": "[SEP]", "type_id": 1}}],
                           "special_tokens": {t: {"id": t, "ids": [ids[t]], "tokens": [t]}
                                              for t in ("[CLS]", "[SEP]")}},
        "decoder": {"type": "WordPiece", "prefix": "##", "cleanup": True},
        "model": {"type": "WordPiece", "unk_token": "[UNK]", "continuing_subword_prefix": "##",
                  "max_input_chars_per_word": 100, "vocab": ids},
    }


def bpe_vocab():
    return ["<s>", "<pad>", "</s>", "<unk>"] + bytes_to_unicode() + [a + b for a, b in MERGES] + ["<mask>"]


def bpe_tokenizer(tokens):
    ids = {t: i for i, t in enumerate(tokens)}
    added = [{"id": ids[t], "content": t, "single_word": False, "lstrip": t == "<mask>", "rstrip": False,
              "normalized": t != "<mask>", "special": True} for t in ("<s>", "<pad>", "</s>", "<unk>", "<mask>")]
    return {
        "version": "1.0", "truncation": None, "padding": None, "added_tokens": added, "normalizer": None,
        "pre_tokenizer": {"type": "ByteLevel", "add_prefix_space": False, "trim_offsets": True, "use_regex": True},
        "post_processor": {"type": "RobertaProcessing", "sep": ["</s>", 2], "cls": ["<s>", 0],
                           "trim_offsets": True, "add_prefix_space": False},
        "decoder": {"type": "ByteLevel", "add_prefix_space": True, "trim_offsets": True, "use_regex": True},
        "model": {"type": "BPE", "dropout": None, "unk_token": None, "continuing_subword_prefix": "",
                  "end_of_word_suffix": "", "fuse_unk": False, "byte_fallback": False, "vocab": ids,
                  "merges": [f"{a} {b}" for a, b in MERGES]},
    }


def config_for(kind, vocab_size):
    if kind == "distilbert":
        return {"architectures": ["DistilBertForMaskedLM"], "model_type": "distilbert",
                "_name_or_path": "tiny-distilbert-reference", "vocab_size": vocab_size, "dim": C,
                "n_layers": LAYERS, "n_heads": HEADS, "hidden_dim": FF, "activation": "gelu",
                "max_position_embeddings": POSITIONS, "sinusoidal_pos_embds": False, "dropout": 0.1,
                "attention_dropout": 0.1, "initializer_range": 0.02, "pad_token_id": 0, "tie_weights_": True,
                "transformers_version": "4.44.0"}
    cfg = {"architectures": ["BertForMaskedLM" if kind == "bert" else "RobertaForMaskedLM"], "model_type": kind,
           "_name_or_path": f"tiny-{kind}-reference", "vocab_size": vocab_size, "hidden_size": C,
           "num_hidden_layers": LAYERS, "num_attention_heads": HEADS, "intermediate_size": FF,
           "hidden_act": "gelu", "hidden_dropout_prob": 0.1, "attention_probs_dropout_prob": 0.1,
           "max_position_embeddings": POSITIONS, "type_vocab_size": TYPES, "initializer_range": 0.02,
           "layer_norm_eps": 1e-12, "pad_token_id": 0, "position_embedding_type": "absolute",
           "use_cache": True, "classifier_dropout": None, "transformers_version": "4.44.0"}
    if kind == "roberta":
        cfg.update({"pad_token_id": 1, "bos_token_id": 0, "eos_token_id": 2, "type_vocab_size": 1,
                    "max_position_embeddings": POSITIONS + 2, "layer_norm_eps": 1e-5})
    return cfg


def names(kind):
    """Our generic parts -> the family's tensor names (without the base model's prefix)."""
    if kind == "distilbert":
        layer = {"q": "attention.q_lin", "k": "attention.k_lin", "v": "attention.v_lin", "o": "attention.out_lin",
                 "ln1": "sa_layer_norm", "ff1": "ffn.lin1", "ff2": "ffn.lin2", "ln2": "output_layer_norm"}
        return {"layer": "transformer.layer.{}.", "parts": layer, "dense": "vocab_transform",
                "head_ln": "vocab_layer_norm", "bias": "vocab_projector.bias", "decoder": "vocab_projector.weight"}
    layer = {"q": "attention.self.query", "k": "attention.self.key", "v": "attention.self.value",
             "o": "attention.output.dense", "ln1": "attention.output.LayerNorm", "ff1": "intermediate.dense",
             "ff2": "output.dense", "ln2": "output.LayerNorm"}
    if kind == "bert":
        return {"layer": "encoder.layer.{}.", "parts": layer, "dense": "cls.predictions.transform.dense",
                "head_ln": "cls.predictions.transform.LayerNorm", "bias": "cls.predictions.bias",
                "decoder": "cls.predictions.decoder.weight"}
    return {"layer": "encoder.layer.{}.", "parts": layer, "dense": "lm_head.dense", "head_ln": "lm_head.layer_norm",
            "bias": "lm_head.bias", "decoder": "lm_head.decoder.weight"}


def random_weights(cfg, kind, head, gen):
    """name -> tensor, with the base model's names unprefixed and the head's as saved."""
    V = cfg["vocab_size"]
    n = names(kind)

    def rnd(*shape, std=0.3, mean=0.0):
        return torch.randn(*shape, generator=gen) * std + mean

    def norm(name):
        w[name + ".weight"] = rnd(C, std=0.1, mean=1.0)
        w[name + ".bias"] = rnd(C, std=0.1)

    def lin(name, rows, cols):
        w[name + ".weight"] = rnd(rows, cols, std=1.0 / math.sqrt(cols))
        w[name + ".bias"] = rnd(rows, std=0.1)

    w = {"embeddings.word_embeddings.weight": rnd(V, C),
         "embeddings.position_embeddings.weight": rnd(cfg["max_position_embeddings"], C, std=0.3)}
    if kind != "distilbert":
        w["embeddings.token_type_embeddings.weight"] = rnd(cfg["type_vocab_size"], C, std=0.3)
    norm("embeddings.LayerNorm")
    for i in range(LAYERS):
        p = n["layer"].format(i)
        for part in ("q", "k", "v", "o"):
            lin(p + n["parts"][part], C, C)
        norm(p + n["parts"]["ln1"])
        lin(p + n["parts"]["ff1"], FF, C)
        lin(p + n["parts"]["ff2"], C, FF)
        norm(p + n["parts"]["ln2"])
    if head:
        lin(n["dense"], C, C)
        norm(n["head_ln"])
        w[n["bias"]] = rnd(V, std=0.1)
    elif kind == "bert":
        lin("pooler.dense", C, C)
    return w


def layer_norm(x, w, prefix, eps):
    return torch.nn.functional.layer_norm(x, (C,), w[prefix + ".weight"], w[prefix + ".bias"], eps)


def gelu(x):
    return 0.5 * x * (1.0 + torch.erf(x / math.sqrt(2.0)))


def forward(w, ids, cfg, kind, head):
    T, H = len(ids), HEADS
    n = names(kind)
    eps = 1e-12 if kind == "distilbert" else cfg["layer_norm_eps"]
    first = cfg["pad_token_id"] + 1 if kind == "roberta" else 0
    x = w["embeddings.word_embeddings.weight"][ids] + w["embeddings.position_embeddings.weight"][first:first + T]
    if kind != "distilbert":
        x = x + w["embeddings.token_type_embeddings.weight"][0]
    x = layer_norm(x, w, "embeddings.LayerNorm", eps)

    def lin(name, t):
        return t @ w[name + ".weight"].T + w[name + ".bias"]

    attention = []
    for i in range(LAYERS):
        p = n["layer"].format(i)
        part = {k: p + v for k, v in n["parts"].items()}
        q, k, v = (lin(part[s], x).view(T, H, HS).transpose(0, 1) for s in ("q", "k", "v"))  # (H, T, hs)
        probs = (q @ k.transpose(-1, -2) / math.sqrt(HS)).softmax(-1)  # (H, T, T)
        attention.append(probs)
        a = layer_norm(x + lin(part["o"], (probs @ v).transpose(0, 1).reshape(T, C)), w, part["ln1"], eps)
        x = layer_norm(a + lin(part["ff2"], gelu(lin(part["ff1"], a))), w, part["ln2"], eps)
    if not head:
        return None, attention
    h = layer_norm(gelu(lin(n["dense"], x)), w, n["head_ln"], eps)
    return h @ w["embeddings.word_embeddings.weight"].T + w[n["bias"]], attention


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("out")
    ap.add_argument("--type", choices=["bert", "roberta", "distilbert"], default="bert")
    ap.add_argument("--no-head", action="store_true")
    ap.add_argument("--no-prefix", action="store_true")
    ap.add_argument("--gamma-beta", action="store_true")
    ap.add_argument("--decoder-weight", action="store_true")
    ap.add_argument("--vocab-txt", action="store_true")
    ap.add_argument("--dtype", choices=["F32", "F16", "BF16"], default="F32")
    ap.add_argument("--ids", default="")
    args = ap.parse_args()
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    head = not args.no_head

    tokens = bpe_vocab() if args.type == "roberta" else wordpiece_vocab()
    tokenizer = bpe_tokenizer(tokens) if args.type == "roberta" else wordpiece_tokenizer(tokens)
    if args.vocab_txt and args.type != "roberta":
        (out / "vocab.txt").write_text("".join(t + "\n" for t in tokens), encoding="utf-8")
        (out / "tokenizer_config.json").write_text(json.dumps({"do_lower_case": True, "model_max_length": 512}))
    else:
        (out / "tokenizer.json").write_text(json.dumps(tokenizer, ensure_ascii=False), encoding="utf-8")
    cfg = config_for(args.type, len(tokens))
    if not head:
        cfg["architectures"] = [{"bert": "BertModel", "roberta": "RobertaModel",
                                 "distilbert": "DistilBertModel"}[args.type]]
    (out / "config.json").write_text(json.dumps(cfg, indent=2) + "\n")

    gen = torch.Generator().manual_seed(1810)
    prefix = "" if args.no_prefix else {"bert": "bert.", "roberta": "roberta.", "distilbert": "distilbert."}[args.type]
    beside = ("cls.", "lm_head.", "vocab_")
    entries, w = {}, {}
    for name, t in random_weights(cfg, args.type, head, gen).items():
        dtype, raw, back = stored(t, args.dtype)
        saved = name if name.startswith(beside) else prefix + name
        if args.gamma_beta and "LayerNorm" in saved:
            saved = saved.replace(".weight", ".gamma").replace(".bias", ".beta")
        entries[saved] = (dtype, t.shape, raw)
        w[name] = back
    if head and args.decoder_weight:
        table = entries[prefix + "embeddings.word_embeddings.weight"]
        entries[names(args.type)["decoder"]] = table
    # Buffers transformers saves beside the weights, which carry no learned value.
    positions = torch.arange(cfg["max_position_embeddings"], dtype=torch.int64).unsqueeze(0)
    entries[prefix + "embeddings.position_ids"] = ("I64", positions.shape, positions.numpy().tobytes())
    write_safetensors(out / "model.safetensors", entries)

    if args.ids:
        ids = [int(s) for s in args.ids.split(",")]
    elif args.type == "roberta":
        ids = [0, 70, 264, 260, 71, 265, 68, 261, 83, len(tokens) - 1, 40, 263, 2]
    else:
        ids = [2, 57, 58, 4, 60, 5, 61, 12, 40, 35, 66, 3]
    mask = tokens.index("<mask>" if args.type == "roberta" else "[MASK]")
    with torch.no_grad():
        logits, attention = forward(w, ids, cfg, args.type, head)
    ref = {"ids": ids, "mask": ids.index(mask) if mask in ids else -1, "attention": [a.tolist() for a in attention]}
    if logits is not None:
        ref["logprobs"] = logits.log_softmax(-1).tolist()
    (out / "reference.json").write_text(json.dumps(ref))


if __name__ == "__main__":
    main()
