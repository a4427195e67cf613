#!/usr/bin/env python3
"""Writes the seed corpora of the fuzz targets into tests/fuzz/corpus/<target>/.

Each seed is small (the fuzzer's mutations do the rest): one well-formed input per format the reader
accepts, and one per category of bad input we have met or expect (huge sizes, numbers like 1e400, deep
nesting, duplicate keys, truncated or overlapping data offsets, non-regular files). Run it from anywhere;
it replaces the corpora it writes. Needs only Python's standard library.
"""
import json
import os
import shutil
import struct

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
OUT = os.path.join(HERE, "corpus")


def write(target, name, data):
    d = os.path.join(OUT, target)
    os.makedirs(d, exist_ok=True)
    if isinstance(data, str):
        data = data.encode()
    with open(os.path.join(d, name), "wb") as f:
        f.write(data)


def reset(target):
    shutil.rmtree(os.path.join(OUT, target), ignore_errors=True)


def safetensors(tensors, metadata=None, header_extra=""):
    """tensors: list of (name, dtype, shape, raw bytes); offsets follow one another."""
    header, data, off = {}, b"", 0
    if metadata is not None:
        header["__metadata__"] = metadata
    for name, dtype, shape, raw in tensors:
        header[name] = {"dtype": dtype, "shape": shape, "data_offsets": [off, off + len(raw)]}
        data += raw
        off += len(raw)
    h = json.dumps(header, separators=(",", ":")) + header_extra
    return struct.pack("<Q", len(h)) + h.encode() + data


def raw_header(h, data=b""):
    return struct.pack("<Q", len(h)) + h.encode() + data


def f32(n, v=0.5):
    return struct.pack("<%df" % n, *([v] * n))


def f16(n):
    return struct.pack("<%de" % n, *[0.25 * ((i % 7) - 3) for i in range(n)])


def deep(n):
    return "[" * n + "]" * n


def bytes_to_unicode():
    bs = list(range(ord("!"), ord("~") + 1)) + list(range(ord("¡"), ord("¬") + 1)) + \
        list(range(ord("®"), ord("ÿ") + 1))
    cs = bs[:]
    n = 0
    for b in range(256):
        if b not in bs:
            bs.append(b)
            cs.append(256 + n)
            n += 1
    return dict(zip(bs, map(chr, cs)))


def seeds_safetensors():
    t = "fuzz_safetensors"
    reset(t)
    good = safetensors([("a.weight", "F32", [2, 2], f32(4)), ("b", "F16", [3], f16(3)),
                        ("c", "BF16", [1], b"\x80\x3f"), ("d", "U8", [2], b"\x01\xff"),
                        ("e", "BOOL", [2], b"\x00\x01"), ("empty", "F32", [0, 5], b"")],
                       metadata={"format": "pt"})
    write(t, "good", good)
    write(t, "header-past-end", struct.pack("<Q", 1000) + b"{}")
    write(t, "header-huge", struct.pack("<Q", 1 << 62) + b"{}")
    write(t, "shape-overflow", raw_header(
        '{"x":{"dtype":"F32","shape":[4294967296,4294967296,16],"data_offsets":[0,0]}}'))
    write(t, "shape-1e400", raw_header('{"x":{"dtype":"F32","shape":[1e400],"data_offsets":[0,4]}}', f32(1)))
    write(t, "deep", raw_header('{"x":' + deep(200) + "}"))
    write(t, "duplicate", raw_header(
        '{"x":{"dtype":"U8","shape":[1],"data_offsets":[0,1]},"x":{"dtype":"U8","shape":[1],"data_offsets":[1,2]}}',
        b"ab"))
    write(t, "overlap", raw_header(
        '{"x":{"dtype":"U8","shape":[2],"data_offsets":[0,2]},"y":{"dtype":"U8","shape":[2],"data_offsets":[1,3]}}',
        b"abc"))
    write(t, "truncated", good[:-3])
    write(t, "hole", raw_header('{"x":{"dtype":"U8","shape":[1],"data_offsets":[1,2]}}', b"ab"))


CONFIG_DEMO = {
    "activation": "relu", "architecture": "encoder_decoder", "d_ff": 8, "d_model": 4, "decoder_layers": 1,
    "encoder_layers": 1, "heads": 2, "layer_norm": "seed", "max_len": 16, "name": "seed",
    "norm_eps": 1e-06, "positional_encoding": "sinusoidal", "scale_embeddings": True,
    "share_embeddings": False, "src_vocab_size": 6, "tgt_vocab_size": 6, "tie_output": False,
    "tokenizer": {"lowercase": False, "src_vocab": "vocab.json", "tgt_vocab": "vocab.json", "type": "char"},
}
CONFIG_LM = {
    "activation": "gelu_tanh", "architecture": "decoder_only", "d_ff": 8, "d_model": 4, "decoder_layers": 1,
    "heads": 1, "layer_norm": "standard", "max_len": 8, "name": "seed-lm", "norm_eps": 1e-05,
    "positional_encoding": "learned", "scale_embeddings": False, "share_embeddings": False,
    "tgt_vocab_size": 260, "tie_output": True,
    "tokenizer": {"lowercase": False, "merges": "merges.txt", "src_vocab": "vocab.json",
                  "tgt_vocab": "vocab.json", "type": "byte_bpe"},
}
CONFIG_GPT2 = {"model_type": "gpt2", "n_embd": 4, "n_layer": 1, "n_head": 1, "n_positions": 8,
               "vocab_size": 257, "activation_function": "gelu_new"}


def seeds_config():
    t = "fuzz_config"
    reset(t)
    write(t, "encoder-decoder", json.dumps(CONFIG_DEMO))
    write(t, "decoder-only-bpe", json.dumps(CONFIG_LM))
    word = dict(CONFIG_DEMO, positional_encoding="rope", layer_norm="standard", activation="gelu",
                tokenizer={"type": "word", "lowercase": True, "src_vocab": "src.json", "tgt_vocab": "tgt.json"})
    write(t, "word-rope", json.dumps(word))
    write(t, "sizes-1e400", json.dumps(CONFIG_DEMO).replace('"d_model": 4', '"d_model": 1e400'))
    write(t, "sizes-huge", json.dumps(dict(CONFIG_DEMO, d_model=2 ** 40, max_len=-1)))
    write(t, "deep", '{"name":' + deep(100) + "}")
    write(t, "duplicate-key", '{"d_model": 4, "d_model": 8}')
    write(t, "wrong-types", json.dumps(dict(CONFIG_DEMO, heads="4", tokenizer=[], extra=None)))


def vocab_tokens():
    return ["<pad>", "<bos>", "<eos>", "<unk>", "a", "b"]


def seeds_vocab():
    t = "fuzz_vocab"
    reset(t)
    write(t, "good", json.dumps({tok: i for i, tok in enumerate(vocab_tokens())}))
    write(t, "unicode", '{"<pad>":0,"<bos>":1,"<eos>":2,"<unk>":3,"\\u00e9":4,"\\ud83d\\ude00":5,"\xc3\xa9x":6}')
    write(t, "gap", '{"<pad>":0,"<bos>":1,"<eos>":2,"<unk>":3,"a":5}')
    write(t, "duplicate-id", '{"<pad>":0,"<bos>":1,"<eos>":2,"<unk>":3,"a":3}')
    write(t, "duplicate-key", '{"<pad>":0,"<bos>":1,"<eos>":2,"<unk>":3,"<unk>":4}')
    write(t, "ids-1e400", '{"<pad>":0,"<bos>":1e400,"<eos>":-1,"<unk>":18446744073709551616}')
    write(t, "deep", '{"a":' + deep(100) + "}")
    write(t, "not-object", '["<pad>", "<bos>"]')


def seeds_merges():
    t = "fuzz_merges"
    reset(t)
    with open(os.path.join(ROOT, "resources/models/tiny-lm/merges.txt"), encoding="utf-8") as f:
        lines = f.read().splitlines()
    write(t, "head", "\n".join(lines[:20]) + "\n")
    write(t, "no-version", "\n".join(lines[1:12]))
    write(t, "crlf-blank", "\r\n".join(lines[:6]) + "\r\n\r\n" + lines[6] + "\r\n")
    write(t, "three-tokens", lines[0] + "\n" + lines[1] + " x\n")
    write(t, "outside-alphabet", lines[0] + "\n<|endoftext|> a\n")
    write(t, "not-in-vocab", lines[0] + "\nĠ Ġ\nĠĠ ĠĠ\nĠĠĠĠ ĠĠĠĠ\nĠĠĠĠĠĠĠĠ ĠĠĠĠĠĠĠĠ\n")
    write(t, "repeated", lines[0] + "\n" + (lines[1] + "\n") * 40)


def seeds_recipe():
    t = "fuzz_recipe"
    reset(t)
    recipes = os.path.join(ROOT, "resources/recipes")
    os.makedirs(os.path.join(OUT, t))
    for name in sorted(os.listdir(recipes)):
        shutil.copy(os.path.join(recipes, name), os.path.join(OUT, t, name[:-5]))
    write(t, "steps-1e400", '{"task": "reverse", "steps": 1e400}')
    write(t, "huge", '{"task": "sort", "batch_size": 4294967296, "max_len": 2147483647, '
                     '"model": {"d_model": 65536, "heads": 1}}')
    write(t, "deep", '{"model":' + deep(100) + "}")
    write(t, "duplicate-key", '{"task": "copy", "task": "reverse"}')
    write(t, "unknown-field", '{"task": "addition", "min_len": 0, "colour": "red"}')


def entries(files):
    """The fuzz_modeldir archive: "=== name" lines, each followed by its content; the newline before a
    "=== " line belongs to the line, not to the content before it."""
    parts = []
    for name, content in files:
        part = b"=== " + name.encode()
        if content is not None:
            part += b"\n" + (content if isinstance(content, bytes) else content.encode())
        parts.append(part)
    return b"\n".join(parts)


def ours_weights(c):
    d, ff = c["d_model"], c["d_ff"]
    tensors = []

    def lin(prefix, o, i):
        tensors.append((prefix + ".weight", "F16", [o, i], f16(o * i)))
        tensors.append((prefix + ".bias", "F16", [o], f16(o)))

    def norm(prefix):
        tensors.append((prefix + ".a_2", "F16", [d], f16(d)))
        tensors.append((prefix + ".b_2", "F16", [d], f16(d)))

    sides = [("decoder", c["decoder_layers"], 3 if c["architecture"] == "encoder_decoder" else 2)]
    if c["architecture"] == "encoder_decoder":
        sides.append(("encoder", c["encoder_layers"], 2))
    for side, layers, subs in sides:
        for l in range(layers):
            p = "%s.layers.%d." % (side, l)
            lin(p + "feed_forward.w_1", ff, d)
            lin(p + "feed_forward.w_2", d, ff)
            attns = ["self_attn"] + (["src_attn"] if side == "decoder" and subs == 3 else [])
            for a in attns:
                for k in range(4):
                    lin(p + "%s.linears.%d" % (a, k), d, d)
            for s in range(subs):
                norm(p + "sublayer.%d.norm" % s)
        norm(side + ".norm")
    V = c["tgt_vocab_size"]
    tensors.append(("tgt_embed.0.lut.weight", "F16", [V, d], f16(V * d)))
    if c["architecture"] == "encoder_decoder":
        Vs = c["src_vocab_size"]
        tensors.append(("src_embed.0.lut.weight", "F16", [Vs, d], f16(Vs * d)))
    if c["positional_encoding"] == "learned":
        tensors.append(("tgt_embed.1.weight", "F16", [c["max_len"], d], f16(c["max_len"] * d)))
    if not c["tie_output"]:
        lin("generator.proj", V, d)
    return safetensors(sorted(tensors), metadata={"format": "pt"})


def gpt2_weights(c):
    C, V, P = c["n_embd"], c["vocab_size"], c["n_positions"]
    F = 4 * C
    t = [("wte.weight", [V, C]), ("wpe.weight", [P, C]), ("ln_f.weight", [C]), ("ln_f.bias", [C])]
    for i in range(c["n_layer"]):
        h = "h.%d." % i
        t += [(h + "ln_1.weight", [C]), (h + "ln_1.bias", [C]), (h + "ln_2.weight", [C]), (h + "ln_2.bias", [C]),
              (h + "attn.c_attn.weight", [C, 3 * C]), (h + "attn.c_attn.bias", [3 * C]),
              (h + "attn.c_proj.weight", [C, C]), (h + "attn.c_proj.bias", [C]),
              (h + "mlp.c_fc.weight", [C, F]), (h + "mlp.c_fc.bias", [F]),
              (h + "mlp.c_proj.weight", [F, C]), (h + "mlp.c_proj.bias", [C])]
    tensors = []
    for name, shape in t:
        n = 1
        for s in shape:
            n *= s
        tensors.append((name, "F16", shape, f16(n)))
    return safetensors(sorted(tensors))


def seeds_modeldir():
    t = "fuzz_modeldir"
    reset(t)
    vocab = json.dumps({tok: i for i, tok in enumerate(vocab_tokens())})
    demo = [("config.json", json.dumps(CONFIG_DEMO)), ("vocab.json", vocab),
            ("model.safetensors", ours_weights(CONFIG_DEMO))]
    write(t, "ours-char", entries(demo))
    alphabet = bytes_to_unicode()
    lm_vocab = {tok: i for i, tok in enumerate(["<pad>", "<bos>", "<eos>", "<unk>"] +
                                               [alphabet[b] for b in range(256)])}
    lm = [("config.json", json.dumps(CONFIG_LM)), ("vocab.json", json.dumps(lm_vocab, ensure_ascii=False)),
          ("merges.txt", "#version: 0.2\n"), ("model.safetensors", ours_weights(CONFIG_LM))]
    write(t, "ours-bpe", entries(lm))
    g_vocab = {alphabet[b]: i for i, b in enumerate(range(256))}
    g_vocab["<|endoftext|>"] = 256
    gpt2 = [("config.json", json.dumps(CONFIG_GPT2)), ("vocab.json", json.dumps(g_vocab, ensure_ascii=False)),
            ("merges.txt", "#version: 0.2\n"), ("model.safetensors", gpt2_weights(CONFIG_GPT2))]
    write(t, "gpt2", entries(gpt2))
    write(t, "weights-directory", entries(demo[:2] + [("model.safetensors/", None)]))
    write(t, "weights-dangling-link", entries(demo[:2] + [("model.safetensors -> missing", None)]))
    write(t, "vocab-link", entries([demo[0], ("words.json", vocab), ("vocab.json -> words.json", None), demo[2]]))
    write(t, "weights-truncated", entries(demo[:2] + [("model.safetensors", ours_weights(CONFIG_DEMO)[:-9])]))
    write(t, "config-1e400", entries([("config.json", json.dumps(CONFIG_DEMO).replace('"max_len": 16',
                                                                                        '"max_len": 1e400'))]
                                     + demo[1:]))


def seeds_text():
    t = "fuzz_text"
    reset(t)
    # First byte: even runs demo-random (characters), odd runs tiny-lm (byte-level BPE).
    for i, text in enumerate(["hello world", "The old man walked to the small white house.",
                              "caf\u00e9 \u00fcber na\u00efve \U0001F600", "  tabs\tand\nnewlines  ",
                              "<bos><eos><unk><|endoftext|>", "x" * 300]):
        write(t, "demo-%d" % i, b"\x00" + text.encode())
        write(t, "lm-%d" % i, b"\x01" + text.encode())
    write(t, "invalid-utf8", b"\x01ab\xff\xfe\xc3(\xe2\x82 \xf0\x9f")


if __name__ == "__main__":
    seeds_safetensors()
    seeds_config()
    seeds_vocab()
    seeds_merges()
    seeds_recipe()
    seeds_modeldir()
    seeds_text()
