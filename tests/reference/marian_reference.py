"""A tiny random Marian translation model in Hugging Face's directory format, and what it computes.

usage: marian_reference.py OUT_DIR [--untied] [--bare] [--dedup] [--no-positions] [--activation swish|gelu|relu]
                           [--no-scale] [--dtype F32|F16|BF16] [--steps N]

Writes OUT_DIR/config.json (the keys of transformers' MarianConfig, as the opus-mt folders have them),
model.safetensors (MarianMTModel's tensor names: model.shared, model.encoder.embed_tokens,
model.encoder.embed_positions, model.encoder.layers.N.self_attn.q_proj, ..., self_attn_layer_norm, fc1, fc2,
final_layer_norm, model.decoder.layers.N.encoder_attn.*, encoder_attn_layer_norm, lm_head, final_logits_bias;
--untied writes an lm_head of its own, --bare MarianModel's names without the prefix, lm_head and bias,
--dedup keeps only model.shared of the tied tables as safetensors' writer does, --no-positions leaves the
sinusoid tables out), source.spm and target.spm (SentencePiece unigram models trained here on a few English
and Spanish sentences) and vocab.json (</s> 0, <unk> 1, both models' pieces, a language code, <pad> last),
and OUT_DIR/reference.json:
  {"src_text", "src_ids": [S], "tgt_ids": [T], "logprobs": [T][V] (0 in the banned columns: −∞),
   "banned": ids bad_words_ids lists alone, "encoder": [L][H][S][S],
   "decoder": [L][H][T][T], "cross": [L][H][T][S], "greedy": [N] ids decoded greedily from <pad>,
   "tokenize": [{"text", "ids"}], "detokenize": [{"ids", "text"}]}
The numbers are computed in float64 from the stored weights by the network below, written from Marian's
design: token embeddings (times sqrt(d_model) when scale_embedding) plus the sinusoid laid out in halves
(sines in columns [0, C/2), cosines after, column i and C/2 + i one frequency), post-norm blocks
a = LN(x + Attn(x)), x = LN(a + fc2(act(fc1(a)))) (the decoder's with a causal self-attention and then
cross-attention to the encoder's output), and logits = x W^T + final_logits_bias with W the shared table, the
tokens bad_words_ids lists alone set to −∞ as generate's scores have them. The
tokenizer's ids follow MarianTokenizer: a leading >>code<< is one token, the rest is the side's SentencePiece
pieces looked up in vocab.json (a missing one is <unk>), and a source ends with </s>; decoding joins the
target pieces with the target model. Exit status 77 when torch or sentencepiece is missing.
"""
import argparse
import io
import json
import math
import re
import sys
from pathlib import Path

try:
    import torch
except ImportError:
    print("python3-torch is not installed", file=sys.stderr)
    sys.exit(77)
try:
    import sentencepiece as spm
except ImportError:
    print("python3-sentencepiece is not installed", file=sys.stderr)
    sys.exit(77)

from gpt2_reference import stored, write_safetensors

C, LAYERS, HEADS, FF, POSITIONS = 32, 2, 4, 48, 64
HS = C // HEADS
ENGLISH = [
    "The cat sat on the mat.", "The dog ran in the park.", "A big red house stands on the hill.",
    "She reads a book every evening.", "We drink coffee in the morning.", "The children play in the garden.",
    "My friend lives in a small town.", "The weather is nice today.", "He writes letters to his mother.",
    "They walk to school together.", "The train leaves at seven.", "I like green apples and bread.",
]
SPANISH = [
    "El gato se sentó en la alfombra.", "El perro corrió en el parque.", "Una casa roja grande está en la colina.",
    "Ella lee un libro cada tarde.", "Bebemos café por la mañana.", "Los niños juegan en el jardín.",
    "Mi amigo vive en un pueblo pequeño.", "Hoy hace buen tiempo.", "Él escribe cartas a su madre.",
    "Ellos caminan juntos a la escuela.", "El tren sale a las siete.", "Me gustan las manzanas verdes y el pan.",
]
LANGUAGE_CODE = ">>spa<<"
TOKENIZE = ["The cat sat on the mat.", "A big dog, a red park!", ">>spa<< The children read.",
            "Ünïcode ✓ 日本", "  spaces   between  ", "The zebra quietly yawned.", "Mañana, el niño."]


def train_spm(lines, size):
    model = io.BytesIO()
    spm.SentencePieceTrainer.train(sentence_iterator=iter(lines), model_writer=model, vocab_size=size,
                                   model_type="unigram", character_coverage=1.0, num_threads=1,
                                   hard_vocab_limit=False, minloglevel=2)
    return model.getvalue()


def marian_vocab(source, target):
    """vocab.json as the opus-mt conversion writes it: </s>, <unk>, the pieces of both models, <pad> last."""
    tokens = ["</s>", "<unk>"]
    for model in (source, target):
        for i in range(model.get_piece_size()):
            piece = model.id_to_piece(i)
            if piece not in ("<unk>", "<s>", "</s>") and piece not in tokens:
                tokens.append(piece)
    tokens.append(LANGUAGE_CODE)
    tokens.append("<pad>")
    return {t: i for i, t in enumerate(tokens)}


def tokenize(model, vocab, text):
    """MarianTokenizer's _tokenize and convert_tokens_to_ids, and the </s> it appends to a source."""
    match = re.match(">>.+<<", text)
    code = [match.group(0)] if match else []
    pieces = code + model.encode(re.sub(">>.+<<", "", text), out_type=str)
    return [vocab.get(p, vocab["<unk>"]) for p in pieces] + [vocab["</s>"]]


def detokenize(model, tokens, ids):
    """MarianTokenizer.decode(ids, skip_special_tokens=True) for the target side."""
    specials = {"</s>", "<unk>", "<pad>"}
    return model.decode_pieces([tokens[i] for i in ids if tokens[i] not in specials]).replace("\u2581", " ").strip()


def config_for(args, vocab_size, pad):
    return {"_name_or_path": "tiny-marian-reference", "architectures": ["MarianModel" if args.bare else "MarianMTModel"],
            "model_type": "marian", "vocab_size": vocab_size, "decoder_vocab_size": vocab_size, "d_model": C,
            "encoder_layers": LAYERS, "decoder_layers": LAYERS, "encoder_attention_heads": HEADS,
            "decoder_attention_heads": HEADS, "encoder_ffn_dim": FF, "decoder_ffn_dim": FF,
            "max_position_embeddings": POSITIONS, "activation_function": args.activation,
            "scale_embedding": not args.no_scale, "share_encoder_decoder_embeddings": True,
            "tie_word_embeddings": not args.untied, "pad_token_id": pad, "decoder_start_token_id": pad,
            "eos_token_id": 0, "forced_eos_token_id": 0, "bad_words_ids": [[pad]], "is_encoder_decoder": True,
            "static_position_embeddings": True, "normalize_before": False, "normalize_embedding": False,
            "add_final_layer_norm": False, "dropout": 0.1, "attention_dropout": 0.0, "activation_dropout": 0.0,
            "init_std": 0.02, "num_beams": 4, "max_length": 512, "transformers_version": "4.44.0"}


def sinusoid(positions):
    """MarianSinusoidalPositionalEmbedding's table: sin in the first half, cos in the second."""
    enc = [[pos / math.pow(10000, 2 * (j // 2) / C) for j in range(C)] for pos in range(positions)]
    enc = torch.tensor(enc, dtype=torch.float64)
    out = torch.zeros(positions, C, dtype=torch.float64)
    out[:, : C // 2] = torch.sin(enc[:, 0::2])
    out[:, C // 2:] = torch.cos(enc[:, 1::2])
    return out


def random_weights(V, pad, untied, gen):
    """name -> tensor, MarianMTModel's names without the "model." prefix (lm_head and the bias beside). <pad>'s
    row and bias are zero, as the opus-mt conversion appends them."""
    def rnd(*shape, std=0.3, mean=0.0):
        return torch.randn(*shape, generator=gen) * std + mean

    w = {"shared.weight": rnd(V, C, std=0.5)}
    w["shared.weight"][pad] = 0.0

    def norm(name):
        w[name + ".weight"] = rnd(C, std=0.1, mean=1.0)
        w[name + ".bias"] = rnd(C, std=0.1)

    def lin(name, rows, cols):
        w[name + ".weight"] = rnd(rows, cols, std=1.0 / math.sqrt(cols))
        w[name + ".bias"] = rnd(rows, std=0.1)

    def attention(name):
        for p in ("q_proj", "k_proj", "v_proj", "out_proj"):
            lin(name + "." + p, C, C)

    for side in ("encoder", "decoder"):
        for i in range(LAYERS):
            p = f"{side}.layers.{i}."
            attention(p + "self_attn")
            norm(p + "self_attn_layer_norm")
            if side == "decoder":
                attention(p + "encoder_attn")
                norm(p + "encoder_attn_layer_norm")
            lin(p + "fc1", FF, C)
            lin(p + "fc2", C, FF)
            norm(p + "final_layer_norm")
    w["final_logits_bias"] = rnd(1, V, std=0.2)
    w["final_logits_bias"][0, pad] = 0.0
    if untied:
        w["lm_head.weight"] = rnd(V, C, std=0.5)
        w["lm_head.weight"][pad] = 0.0
    return w


def act(name, x):
    if name == "swish":
        return x * torch.sigmoid(x)
    if name == "relu":
        return x.clamp(min=0)
    return 0.5 * x * (1.0 + torch.erf(x / math.sqrt(2.0)))


class Marian:
    def __init__(self, w, cfg, bare):
        self.w, self.cfg, self.bare = w, cfg, bare
        self.pe = sinusoid(POSITIONS)
        self.scale = math.sqrt(C) if cfg["scale_embedding"] else 1.0
        self.banned = [ids[0] for ids in cfg["bad_words_ids"] if len(ids) == 1]

    def lin(self, name, t):
        return t @ self.w[name + ".weight"].T + self.w[name + ".bias"]

    def ln(self, name, x):
        return torch.nn.functional.layer_norm(x, (C,), self.w[name + ".weight"], self.w[name + ".bias"], 1e-5)

    def attend(self, name, x, memory, causal):
        T, S = x.shape[0], memory.shape[0]
        q = self.lin(name + ".q_proj", x).view(T, HEADS, HS).transpose(0, 1)  # (H, T, hs)
        k = self.lin(name + ".k_proj", memory).view(S, HEADS, HS).transpose(0, 1)  # (H, S, hs)
        v = self.lin(name + ".v_proj", memory).view(S, HEADS, HS).transpose(0, 1)
        scores = q @ k.transpose(-1, -2) / math.sqrt(HS)  # (H, T, S)
        if causal:
            scores = scores.masked_fill(torch.ones(T, S, dtype=torch.bool).triu(1), float("-inf"))
        probs = scores.softmax(-1)
        return self.lin(name + ".out_proj", (probs @ v).transpose(0, 1).reshape(T, C)), probs

    def embed(self, ids):
        return self.w["shared.weight"][ids] * self.scale + self.pe[: len(ids)]

    def encode(self, src):
        x, maps = self.embed(src), []
        for i in range(LAYERS):
            p = f"encoder.layers.{i}."
            a, probs = self.attend(p + "self_attn", x, x, False)
            maps.append(probs)
            a = self.ln(p + "self_attn_layer_norm", x + a)
            x = self.ln(p + "final_layer_norm", a + self.lin(p + "fc2", act(self.cfg["activation_function"],
                                                                          self.lin(p + "fc1", a))))
        return x, maps

    def decode(self, tgt, memory):
        y, selfs, crosses = self.embed(tgt), [], []
        for i in range(LAYERS):
            p = f"decoder.layers.{i}."
            a, probs = self.attend(p + "self_attn", y, y, True)
            selfs.append(probs)
            a = self.ln(p + "self_attn_layer_norm", y + a)
            b, probs = self.attend(p + "encoder_attn", a, memory, False)
            crosses.append(probs)
            b = self.ln(p + "encoder_attn_layer_norm", a + b)
            y = self.ln(p + "final_layer_norm", b + self.lin(p + "fc2", act(self.cfg["activation_function"],
                                                                          self.lin(p + "fc1", b))))
        table = self.w["lm_head.weight"] if "lm_head.weight" in self.w else self.w["shared.weight"]
        bias = 0.0 if self.bare else self.w["final_logits_bias"][0]
        logits = y @ table.T + bias
        # generate's scores: the tokens bad_words_ids lists alone are never picked.
        logits[:, self.banned] = float("-inf")
        return logits.log_softmax(-1), selfs, crosses


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("out")
    ap.add_argument("--untied", action="store_true")
    ap.add_argument("--bare", action="store_true")
    ap.add_argument("--dedup", action="store_true")
    ap.add_argument("--no-positions", action="store_true")
    ap.add_argument("--activation", choices=["swish", "gelu", "relu"], default="swish")
    ap.add_argument("--no-scale", action="store_true")
    ap.add_argument("--dtype", choices=["F32", "F16", "BF16"], default="F32")
    ap.add_argument("--steps", type=int, default=8)
    args = ap.parse_args()
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)

    source_bytes, target_bytes = train_spm(ENGLISH, 120), train_spm(SPANISH, 120)
    (out / "source.spm").write_bytes(source_bytes)
    (out / "target.spm").write_bytes(target_bytes)
    source = spm.SentencePieceProcessor(model_proto=source_bytes)
    target = spm.SentencePieceProcessor(model_proto=target_bytes)
    vocab = marian_vocab(source, target)
    tokens = sorted(vocab, key=vocab.get)
    V, pad = len(vocab), vocab["<pad>"]
    (out / "vocab.json").write_text(json.dumps(vocab, ensure_ascii=False, indent=2), encoding="utf-8")
    (out / "tokenizer_config.json").write_text(json.dumps({"source_lang": "en", "target_lang": "es",
                                                           "model_max_length": 512}))
    cfg = config_for(args, V, pad)
    (out / "config.json").write_text(json.dumps(cfg, indent=2) + "\n")

    gen = torch.Generator().manual_seed(2417)
    entries, w = {}, {}
    beside = ("lm_head.", "final_logits_bias")
    for name, t in random_weights(V, pad, args.untied, gen).items():
        if args.bare and name.startswith(beside):
            continue
        dtype, raw, back = stored(t, args.dtype)
        entries[name if args.bare or name.startswith(beside) else "model." + name] = (dtype, t.shape, raw)
        w[name] = back
    prefix = "" if args.bare else "model."
    if not args.dedup:  # older writers save a tied table under each of its names
        table = entries[prefix + "shared.weight"]
        entries[prefix + "encoder.embed_tokens.weight"] = table
        entries[prefix + "decoder.embed_tokens.weight"] = table
        if not args.untied and not args.bare:
            entries["lm_head.weight"] = table
    if not args.no_positions:  # a float32 parameter of transformers' module, whatever the weights' dtype
        pe = sinusoid(POSITIONS).to(torch.float32)
        for side in ("encoder", "decoder"):
            entries[prefix + side + ".embed_positions.weight"] = ("F32", pe.shape, pe.numpy().tobytes())
    write_safetensors(out / "model.safetensors", entries)

    src_text = "The big cat sat on the red mat."
    src = tokenize(source, vocab, src_text)
    tgt = [pad] + tokenize(target, vocab, "El gato grande se sentó.")[:-1]
    net = Marian(w, cfg, args.bare)
    with torch.no_grad():
        memory, enc_maps = net.encode(src)
        logprobs, selfs, crosses = net.decode(tgt, memory)
        greedy = [pad]
        for _ in range(args.steps):
            nxt = int(net.decode(greedy, memory)[0][-1].argmax())
            greedy.append(nxt)
            if nxt == vocab["</s>"]:
                break
    rng = torch.Generator().manual_seed(5)
    detok = [[int(i) for i in torch.randint(0, V, (12,), generator=rng)] for _ in range(4)]
    detok.append(tokenize(target, vocab, "Los niños juegan en el jardín.")[:-1])
    logprobs[:, net.banned] = 0.0  # -inf has no JSON; "banned" names the columns
    ref = {"src_text": src_text, "src_ids": src, "tgt_ids": tgt, "logprobs": logprobs.tolist(), "banned": net.banned,
           "encoder": [a.tolist() for a in enc_maps], "decoder": [a.tolist() for a in selfs],
           "cross": [a.tolist() for a in crosses], "greedy": greedy[1:],
           "tokenize": [{"text": t, "ids": tokenize(source, vocab, t)} for t in TOKENIZE],
           "detokenize": [{"ids": ids, "text": detokenize(target, tokens, ids)} for ids in detok]}
    (out / "reference.json").write_text(json.dumps(ref, ensure_ascii=False))


if __name__ == "__main__":
    main()
