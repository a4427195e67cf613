#!/usr/bin/env python3
"""Writes the seed corpora of the fuzz targets into tests/fuzz/corpus/<target>/.

Each seed is small (the fuzzer's mutations do the rest): one well-formed input per format the reader
accepts, and one per category of bad input we have met or expect (huge sizes, numbers like 1e400, deep
nesting, duplicate keys, truncated or overlapping data offsets, non-regular files, links out of a folder,
regexes that backtrack, id tables in the millions). Seeds that still break their reader go to
tests/fuzz/open/<target>/ instead (OPEN below). Run it from anywhere; it replaces the corpora it writes.
Needs only Python's standard library.
"""
import json
import os
import shutil
import struct

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
OUT = os.path.join(HERE, "corpus")
# Seeds that still break their reader (a crash, a hang, undefined behaviour) go to open/<target>/ instead of
# the corpus: the ordinary suite replays the corpus and must pass, and a campaign that starts on a broken
# seed stops at once. Each is a finding until its reader is fixed; then it leaves this list, and the next
# run of this script puts it in the corpus.
# Every seed that broke its reader when it was written (an id table of 16.7 million names, ICU's exponential
# backtracking, nlohmann's type errors escaping, two tokens of one id, 1e20 cast to an integer) is fixed now.
OPEN = set()


def write(target, name, data):
    d = os.path.join(HERE, "open" if (target, name) in OPEN else "corpus", target)
    os.makedirs(d, exist_ok=True)
    if isinstance(data, str):
        data = data.encode()
    with open(os.path.join(d, name), "wb") as f:
        f.write(data)


def reset(target):
    shutil.rmtree(os.path.join(OUT, target), ignore_errors=True)
    shutil.rmtree(os.path.join(HERE, "open", target), ignore_errors=True)


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
    # A config's vocabulary far past the checkpoint's: 16,777,215 rows against a 257-row wte.
    write(t, "gpt2-vocab-16777215", entries([("config.json", json.dumps(dict(CONFIG_GPT2, vocab_size=16777215)))]
                                            + gpt2[1:]))
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


def sections(first, files):
    """The form of fuzz_tokenizer, fuzz_vocabtxt and fuzz_shardindex (FuzzSections.h): the main file, then
    "=== name" sections; entries() with a main file before them."""
    first = first if isinstance(first, bytes) else first.encode()
    return first + (b"\n" + entries(files) if files else b"")


def byte_level_tokenizer(merges=(), added=None, extra=None):
    """A GPT-2-style tokenizer.json: the 256 bytes, a few merges, <|endoftext|>."""
    alphabet = bytes_to_unicode()
    vocab = {alphabet[b]: i for i, b in enumerate(range(256))}
    for m in merges:
        vocab.setdefault(m.replace(" ", ""), len(vocab))
    vocab["<|endoftext|>"] = len(vocab)
    j = {"version": "1.0",
         "added_tokens": added if added is not None else
         [{"id": vocab["<|endoftext|>"], "content": "<|endoftext|>", "special": True}],
         "normalizer": None,
         "pre_tokenizer": {"type": "ByteLevel", "add_prefix_space": False, "trim_offsets": True,
                           "use_regex": True},
         "post_processor": {"type": "ByteLevel", "add_prefix_space": True, "trim_offsets": False},
         "decoder": {"type": "ByteLevel"},
         "model": {"type": "BPE", "vocab": vocab, "merges": list(merges)}}
    j.update(extra or {})
    return j


def tiny_tokenizer(**parts):
    """The smallest BPE file the reader accepts (test_tokenizerjson's tinyFile), with parts replaced."""
    j = {"version": "1.0", "added_tokens": [{"id": 0, "content": "<e>", "special": True}],
         "normalizer": None, "pre_tokenizer": None, "post_processor": None, "decoder": None,
         "model": {"type": "BPE", "vocab": {"<e>": 0, "a": 1, "b": 2, "ab": 3, " ": 4, "!": 5},
                   "merges": ["a b"]}}
    j.update(parts)
    return json.dumps(j, ensure_ascii=False)


BERT_VOCAB = ["[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]", "hello", "world", ",", "!", "un", "##aff", "##able",
              "run", "##ning", "a", "##b", "caf", "##e", "x", "##x"]


def wordpiece_tokenizer(single=None):
    vocab = {t: i for i, t in enumerate(BERT_VOCAB)}
    return {"version": "1.0",
            "added_tokens": [{"id": vocab[t], "content": t, "special": True}
                             for t in ["[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]"]],
            "normalizer": {"type": "BertNormalizer", "clean_text": True, "handle_chinese_chars": True,
                           "strip_accents": None, "lowercase": True},
            "pre_tokenizer": {"type": "BertPreTokenizer"},
            "post_processor": {"type": "TemplateProcessing",
                               "single": single or [{"SpecialToken": {"id": "[CLS]", "type_id": 0}},
                                                    {"Sequence": {"id": "A", "type_id": 0}},
                                                    {"SpecialToken": {"id": "[SEP]", "type_id": 0}}],
                               "special_tokens": {"[CLS]": {"id": "[CLS]", "ids": [2], "tokens": ["[CLS]"]},
                                                  "[SEP]": {"id": "[SEP]", "ids": [3], "tokens": ["[SEP]"]}}},
            "decoder": {"type": "WordPiece", "prefix": "##", "cleanup": True},
            "model": {"type": "WordPiece", "unk_token": "[UNK]", "continuing_subword_prefix": "##",
                      "max_input_chars_per_word": 100, "vocab": vocab}}


def seeds_tokenizer():
    t = "fuzz_tokenizer"
    reset(t)
    gpt2 = byte_level_tokenizer(["\u0120 t", "h e", "\u0120t he", "l l", "o \u0120"])
    write(t, "gpt2", sections(json.dumps(gpt2, ensure_ascii=False), [("text", " the hello<|endoftext|>")]))
    write(t, "gpt2-config", sections(json.dumps(gpt2, ensure_ascii=False), [
        ("tokenizer_config.json", '{"bos_token": "<|endoftext|>", "eos_token": {"content": "<|endoftext|>"},'
                                  ' "unk_token": null, "pad_token": 7}')]))
    write(t, "wordpiece", sections(json.dumps(wordpiece_tokenizer()), [
        ("tokenizer_config.json", '{"cls_token": "[CLS]", "sep_token": "[SEP]", "pad_token": "[PAD]",'
                                  ' "unk_token": "[UNK]", "mask_token": "[MASK]"}'),
        ("text", "Hello, unaffable world! [MASK]")]))
    unigram = {"version": "1.0", "added_tokens": [{"id": 1, "content": "<s>", "special": True}],
               "normalizer": {"type": "Sequence", "normalizers": [{"type": "NFKC"}, {"type": "Lowercase"}]},
               "pre_tokenizer": {"type": "Metaspace", "replacement": "\u2581", "prepend_scheme": "first",
                                 "split": True},
               "post_processor": {"type": "TemplateProcessing",
                                  "single": [{"SpecialToken": {"id": "<s>", "type_id": 0}},
                                             {"Sequence": {"id": "A", "type_id": 0}}]},
               "decoder": {"type": "Metaspace", "replacement": "\u2581", "prepend_scheme": "first"},
               "model": {"type": "Unigram", "unk_id": 0, "byte_fallback": True,
                         "vocab": [["<unk>", 0.0], ["<s>", 0.0], ["\u2581", -1.0], ["a", -2.0], ["b", -2.5],
                                   ["\u2581a", -1.5], ["ab", -3.0], ["<0xC3>", -9.0], ["<0xA9>", -9.0]]}}
    write(t, "unigram", sections(json.dumps(unigram, ensure_ascii=False), [("text", "ab ba caf\u00e9")]))
    # A regex with nested quantifiers backtracks exponentially on a long word that does not end the text.
    nested = {"type": "Regex", "Regex": r"(\w+\s?)+$"}
    write(t, "split-nested-quantifiers", sections(
        tiny_tokenizer(pre_tokenizer={"type": "Split", "pattern": nested, "behavior": "Isolated",
                                      "invert": False}), [("text", "a" * 40 + "!")]))
    write(t, "replace-nested-quantifiers", sections(
        tiny_tokenizer(normalizer={"type": "Replace", "pattern": nested, "content": "b"}),
        [("text", "ab " * 20 + "!")]))
    for name, regex in [("split-empty-matches", "(?:)"), ("split-empty-lookahead", "(?=a)|\\b")]:
        write(t, name, tiny_tokenizer(pre_tokenizer={"type": "Split", "pattern": {"Regex": regex},
                                                     "behavior": "Removed", "invert": False}))
    write(t, "replace-empty-matches", tiny_tokenizer(
        normalizer={"type": "Replace", "pattern": {"Regex": "x*"}, "content": "a"}))
    write(t, "added-id-16777215", tiny_tokenizer(
        added_tokens=[{"id": 0, "content": "<e>", "special": True}, {"id": 16777215, "content": "<big>"}]))
    write(t, "added-id-16777216", tiny_tokenizer(
        added_tokens=[{"id": 0, "content": "<e>", "special": True}, {"id": 16777216, "content": "<big>"}]))
    many = [{"id": 0, "content": "<e>", "special": True}] + \
        [{"id": 6 + i, "content": "t%x" % i} for i in range(20000)]
    write(t, "added-20000", tiny_tokenizer(added_tokens=many).replace(", ", ",").replace(": ", ":"))
    write(t, "template-A-A", json.dumps(wordpiece_tokenizer(
        [{"SpecialToken": {"id": "[CLS]", "type_id": 0}}, {"Sequence": {"id": "A", "type_id": 0}},
         {"Sequence": {"id": "A", "type_id": 0}}, {"SpecialToken": {"id": "[SEP]", "type_id": 0}}])))
    # No config, no post-processor: the reader looks for a special added token, and finds "special": null.
    write(t, "special-null", tiny_tokenizer(added_tokens=[{"id": 0, "content": "<e>", "special": None},
                                                          {"id": 6, "content": "<s>", "special": True}]))
    # [UNK] is id 1 in the model's vocabulary but id 0 among the added tokens (with [PAD]): found by the fuzzer.
    conflict = wordpiece_tokenizer()
    conflict["added_tokens"][1]["id"] = 0
    write(t, "added-unk-id-conflict", sections(json.dumps(conflict), [
        ("tokenizer_config.json", '{"unk_token": "[UNK]"}'), ("text", "zzz")]))
    write(t, "rows-past-ids", sections(tiny_tokenizer(), [("rows", "9")]))
    write(t, "ids-1e400", tiny_tokenizer(added_tokens=[{"id": 0, "content": "<e>", "special": True}])
          .replace('"a": 1', '"a": 1e400'))
    write(t, "template-id-outside", json.dumps(dict(wordpiece_tokenizer(), post_processor={
        "type": "BertProcessing", "cls": ["[CLS]", 99], "sep": ["[SEP]", 3]})))
    write(t, "deep", '{"model":' + deep(200) + "}")
    write(t, "duplicate-key", '{"model": {"type": "BPE"}, "model": {"type": "WordPiece"}}')
    write(t, "config-not-object", sections(tiny_tokenizer(), [("tokenizer_config.json", "[1, 2]")]))


def seeds_vocabtxt():
    t = "fuzz_vocabtxt"
    reset(t)
    vocab = "\n".join(BERT_VOCAB) + "\n"
    write(t, "bert", vocab)
    write(t, "bert-cased", sections(vocab, [("tokenizer_config.json",
                                             '{"do_lower_case": false, "strip_accents": true, '
                                             '"tokenize_chinese_chars": false}')]))
    write(t, "crlf-blank", vocab.replace("\n", "\r\n").replace("world\r\n", "world\r\n\r\n\r\n"))
    write(t, "duplicate-token", vocab + "hello\n[UNK]\n")
    write(t, "no-unk", vocab.replace("[UNK]\n", ""))
    write(t, "no-cls-sep", "[UNK]\nhello\n")
    write(t, "renamed-specials", sections("<unk>\n<cls>\n<sep>\n<pad>\nhello\n", [
        ("tokenizer_config.json", '{"unk_token": "<unk>", "cls_token": {"content": "<cls>"}, '
                                  '"sep_token": "<sep>", "pad_token": "<pad>", "mask_token": "<mask>"}')]))
    write(t, "config-wrong-types", sections(vocab, [("tokenizer_config.json",
                                                     '{"do_lower_case": "yes", "unk_token": 3, '
                                                     '"strip_accents": [1]}')]))
    write(t, "config-lowercase-string", sections(vocab, [("tokenizer_config.json", '{"do_lower_case": "yes"}')]))
    write(t, "config-null", sections(vocab, [("tokenizer_config.json",
                                              '{"do_lower_case": null, "unk_token": null}')]))
    write(t, "invalid-utf8", vocab.encode() + b"ab\xff\xfe\n\xc3(\n")
    write(t, "no-newline-at-end", vocab.rstrip("\n"))
    write(t, "empty-lines-only", "\n\n\n")
    # Folders, read by core::readTokenizer: links out of the folder, links and directories for files.
    write(t, "folder", entries([("vocab.txt", vocab), ("tokenizer_config.json", '{"do_lower_case": true}')]))
    write(t, "folder-vocab-link-outside", entries([("vocab.txt -> ../outside-vocab.txt", None)]))
    write(t, "folder-config-link-outside", entries([("vocab.txt", vocab),
                                                    ("tokenizer_config.json -> ../outside-config.json", None)]))
    write(t, "folder-config-link", entries([("vocab.txt", vocab), ("config.txt", '{"do_lower_case": false}'),
                                            ("tokenizer_config.json -> config.txt", None)]))
    write(t, "folder-vocab-directory", entries([("vocab.txt/", None)]))
    write(t, "folder-vocab-dangling", entries([("vocab.txt -> missing.txt", None)]))
    write(t, "folder-config-directory", entries([("vocab.txt", vocab), ("tokenizer_config.json/", None)]))


def seeds_shardindex():
    t = "fuzz_shardindex"
    reset(t)
    s1, s2 = "model-00001-of-00002.safetensors", "model-00002-of-00002.safetensors"

    def index(weight_map, metadata=True):
        j = {"weight_map": weight_map}
        if metadata:
            j = {"metadata": {"total_size": 26}, "weight_map": weight_map}
        return json.dumps(j)

    good = {"a": s1, "b": s1, "c": s2}
    write(t, "good", index(good))
    write(t, "no-metadata", index(good, False))
    write(t, "dotdot", index(dict(good, c="../" + s2)))
    write(t, "dotdot-alone", index(dict(good, c="..")))
    write(t, "absolute", index(dict(good, c="/etc/passwd")))
    write(t, "backslash", index(dict(good, c="..\\" + s2)))
    write(t, "empty-name", index(dict(good, c="")))
    write(t, "tensor-in-two-shards", index(dict(good, d="dup.safetensors")))
    write(t, "tensor-wrong-shard", index({"a": s2, "b": s1, "c": s2}))
    write(t, "tensor-unlisted", index({"a": s1, "c": s2}))
    write(t, "tensor-missing", index(dict(good, z=s2)))
    write(t, "shard-missing", index(dict(good, c="model-00003-of-00003.safetensors")))
    write(t, "shard-directory", index(dict(good, c="dir.safetensors")))
    write(t, "shard-dangling-link", index(dict(good, c="dangling.safetensors")))
    write(t, "shard-truncated", index(dict(good, c="truncated.safetensors")))
    write(t, "shard-empty", index(dict(good, e="empty.safetensors")))
    write(t, "shard-link", index(dict(good, c="link.safetensors")))
    write(t, "shard-link-outside", index(dict(good, c="outside.safetensors")))
    write(t, "shard-written", sections(index(dict(good, c="new.safetensors")), [
        ("new.safetensors", safetensors([("c", "F32", [3], f32(3))]))]))
    write(t, "shard-written-nan", sections(index(dict(good, c="new.safetensors")), [
        ("new.safetensors", safetensors([("c", "F32", [3], f32(3, float("nan")))]))]))
    write(t, "duplicate-key", '{"weight_map": {"a": "%s", "a": "%s", "b": "%s", "c": "%s"}}' % (s1, s2, s1, s2))
    write(t, "file-not-string", index(dict(good, c=1e400)))
    write(t, "weight-map-empty", index({}))
    write(t, "weight-map-list", '{"weight_map": ["a", "b"]}')
    write(t, "deep", '{"weight_map":' + deep(200) + "}")
    write(t, "shards-513", index({"t%d" % i: "s%d.safetensors" % i for i in range(513)}))
    write(t, "index-directory", entries([("model.safetensors.index.json/", None)]))
    write(t, "index-link", entries([("real.json", index(good)), ("model.safetensors.index.json -> real.json", None)]))
    write(t, "single-file", entries([("model.safetensors", safetensors([("a", "F32", [2], f32(2))]))]))


def seeds_lesson():
    t = "fuzz_lesson"
    reset(t)
    lessons = os.path.join(ROOT, "resources/lessons")
    for name in sorted(os.listdir(lessons)):
        with open(os.path.join(lessons, name), "rb") as f:
            write(t, name[:-5], f.read())

    def lesson(*steps, **root):
        j = {"format": "attnscope-lesson", "version": 1, "title": "Seed", "steps": list(steps)}
        j.update(root)
        return json.dumps(j, ensure_ascii=False)

    step = {"caption": "The *first* step: {weight}.", "model": "demo-random", "text": "ab", "step": 1,
            "tab": "attention", "kind": "cross", "layer": 0, "head": "mean", "mark": {"column": 1},
            "scale": "log", "value_weighted": True, "zoom": [0, 0, 2, 2], "forced": [[0, 4]],
            "highlight": {"cell": [0, 1], "tile": [0, "mean"]}}
    write(t, "every-field", lesson(step, {"caption": "Next.", "inside_stage": 3, "frame": "formed",
                                          "train": {"preset": "induction", "size": "tiny", "steps": 30}},
                                   description="Two steps."))
    write(t, "huge-caption", lesson({"caption": "x" * 50000}))
    write(t, "many-steps", lesson(*[{"caption": "s%d" % i, "step": i % 5} for i in range(500)]))
    write(t, "deep", lesson({"caption": "deep"}).replace('"caption": "deep"',
                                                         '"caption": "deep", "mark": ' + deep(2000)))
    write(t, "deep-root", deep(5000))
    write(t, "truncated", lesson(step)[:150])
    write(t, "not-object", '["attnscope-lesson"]')
    write(t, "newer-version", lesson(step, version=2))
    write(t, "wrong-format", lesson(step, format="lesson"))
    write(t, "unknown-field", lesson(step, colour="red"))
    write(t, "duplicate-key", '{"format": "attnscope-lesson", "version": 1, "title": "a", "title": "b", '
                              '"steps": [{"caption": "x"}]}')
    write(t, "no-steps", lesson())
    write(t, "step-not-object", lesson("step one"))
    write(t, "step-unknown-field", lesson(dict(step, colour="red")))
    write(t, "step-1e400", lesson(step).replace('"step": 1', '"step": 1e400'))
    write(t, "layer-1e20", lesson(dict(step, layer=1e20)))
    write(t, "layer-negative", lesson(dict(step, layer=-1)))
    write(t, "head-name", lesson(dict(step, head="first")))
    write(t, "kind-unknown", lesson(dict(step, kind="sideways")))
    write(t, "tab-unknown", lesson(dict(step, tab="nowhere")))
    write(t, "mark-both", lesson(dict(step, mark={"row": 1, "column": 2})))
    write(t, "zoom-bad", lesson(dict(step, zoom=[0, 0, -1, 1e308])))
    write(t, "forced-bad", lesson(dict(step, forced=[[0], [-1, 2], "x"])))
    write(t, "highlight-bad", lesson(dict(step, highlight={"cell": [1], "tile": ["mean", 0]})))
    write(t, "train-bad", lesson(dict(step, train={"preset": "", "size": "huge", "steps": -5})))
    write(t, "caption-placeholders", lesson({"caption": "{" * 50 + "weight" + "}" * 50 + " {unknown} {}"}))
    write(t, "empty-title", lesson(step, title="   "))
    write(t, "invalid-utf8", lesson(step).encode().replace(b"The *first*", b"\xff\xfe\xc3("))


if __name__ == "__main__":
    seeds_safetensors()
    seeds_config()
    seeds_vocab()
    seeds_merges()
    seeds_recipe()
    seeds_modeldir()
    seeds_text()
    seeds_tokenizer()
    seeds_vocabtxt()
    seeds_shardindex()
    seeds_lesson()
