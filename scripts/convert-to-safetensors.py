#!/usr/bin/python3
"""Converts a model folder's PyTorch pickled weights into model.safetensors, which attnscope reads.

usage: convert-to-safetensors.py DIR [--input FILE] [--out FILE]

PyTorch's own weight files (pytorch_model.bin, its shards named by pytorch_model.bin.index.json, *.pt,
*.pth) are Python pickles: loading one can run code stored in it, so attnscope does not read them. This
script loads them once, with torch.load(weights_only=True) (which refuses a pickle that holds anything but
tensors and plain containers), and writes their tensors as safetensors: the 8-byte little-endian header
length, the JSON header (padded with spaces to a multiple of 8), the raw little-endian data.

  DIR            the model folder; its pytorch_model.bin (or the shards of pytorch_model.bin.index.json, or
                 its one *.pt / *.pth file) is read unless --input names the file
  --input FILE   the pickled file to read
  --out FILE     where to write (default DIR/model.safetensors); refused if it exists

Floating-point tensors keep their dtype (float32 as F32, float16 as F16, bfloat16 as BF16; float64 is stored
as F32). Integer and boolean buffers (position_ids, attention masks) are left out and listed: they are not
weights. Tensors that share memory (tied embeddings) are each written whole. A checkpoint that wraps its
weights in {"state_dict": ...} or {"model": ...} is unwrapped. The file is written beside its final name and
renamed into place. Exit status 0 done, 2 bad arguments or nothing to convert, 1 a file that cannot be read.

Runs on Debian's python3-torch (/usr/bin/python3); neither numpy nor the safetensors module is needed.
"""
import argparse
import ctypes
import json
import os
import struct
import sys
import tempfile
from pathlib import Path

try:
    import torch
except ImportError:
    print("convert-to-safetensors: python3-torch is not installed (apt install python3-torch)", file=sys.stderr)
    sys.exit(2)

DTYPES = {torch.float32: "F32", torch.float16: "F16", torch.bfloat16: "BF16"}


def fail(message, status=2):
    print(f"convert-to-safetensors: {message}", file=sys.stderr)
    sys.exit(status)


def inputs(folder, given):
    """The pickled files to read, in order."""
    if given:
        return [Path(given)]
    index = folder / "pytorch_model.bin.index.json"
    if index.exists():
        weight_map = json.loads(index.read_text()).get("weight_map")
        if not isinstance(weight_map, dict) or not weight_map:
            fail(f"{index}: no weight_map")
        names = []
        for f in weight_map.values():
            if "/" in f or "\\" in f or f in (".", ".."):
                fail(f"{index}: the shard {f!r} is not a file beside the index")
            if f not in names:
                names.append(f)
        return [folder / f for f in names]
    single = folder / "pytorch_model.bin"
    if single.exists():
        return [single]
    found = sorted(p for p in folder.iterdir() if p.suffix in (".pt", ".pth") and p.is_file())
    if len(found) == 1:
        return found
    if found:
        fail(f"{folder} holds {len(found)} .pt/.pth files; name the one to convert with --input")
    fail(f"{folder} has no pytorch_model.bin, pytorch_model.bin.index.json, .pt or .pth file")


def load(path):
    try:
        try:
            obj = torch.load(path, map_location="cpu", weights_only=True)
        except TypeError:  # a torch older than 1.13 has no weights_only
            fail("this torch cannot load weights safely (weights_only needs torch 1.13 or later)")
    except FileNotFoundError:
        fail(f"{path}: no such file", 1)
    except Exception as e:  # a pickle holding code, or not a pickle at all
        fail(f"{path}: cannot be read as PyTorch weights: {e}", 1)
    for key in ("state_dict", "model"):
        if isinstance(obj, dict) and key in obj and isinstance(obj[key], dict):
            obj = obj[key]
    if not isinstance(obj, dict):
        fail(f"{path}: holds a {type(obj).__name__}, not a dictionary of tensors", 1)
    return obj


def main():
    ap = argparse.ArgumentParser(description="Converts PyTorch pickled weights into model.safetensors.")
    ap.add_argument("dir", metavar="DIR")
    ap.add_argument("--input", metavar="FILE")
    ap.add_argument("--out", metavar="FILE")
    args = ap.parse_args()
    folder = Path(args.dir)
    if not folder.is_dir():
        fail(f"{folder} is not a folder")
    out = Path(args.out) if args.out else folder / "model.safetensors"
    if out.exists():
        fail(f"{out} exists already; remove it or choose another --out")

    tensors, skipped = {}, []
    for path in inputs(folder, args.input):
        for name, t in load(path).items():
            if not isinstance(t, torch.Tensor):
                skipped.append(f"{name} (not a tensor)")
                continue
            if name in tensors:
                fail(f"{path}: tensor {name!r} appears in two files")
            if t.dtype == torch.float64:
                t = t.to(torch.float32)
            if t.dtype not in DTYPES:
                skipped.append(f"{name} ({str(t.dtype).replace('torch.', '')})")
                continue
            tensors[name] = t.detach().to("cpu").contiguous()
    if not tensors:
        fail("no floating-point tensors to write")

    header, offset = {}, 0
    for name in sorted(tensors):
        t = tensors[name]
        size = t.numel() * t.element_size()
        header[name] = {"dtype": DTYPES[t.dtype], "shape": list(t.shape), "data_offsets": [offset, offset + size]}
        offset += size
    header["__metadata__"] = {"format": "pt"}
    h = json.dumps(header, separators=(",", ":")).encode()
    h += b" " * (-len(h) % 8)
    if sys.byteorder != "little":
        fail("this machine is big-endian; safetensors data is little-endian")

    fd, tmp = tempfile.mkstemp(dir=out.parent, prefix=out.name + ".", suffix=".tmp")
    try:
        with os.fdopen(fd, "wb") as f:
            f.write(struct.pack("<Q", len(h)) + h)
            for name in sorted(tensors):
                t = tensors[name]
                # The tensor's own bytes, whatever its dtype (numpy has no bfloat16).
                f.write(ctypes.string_at(t.data_ptr(), t.numel() * t.element_size()))
            f.flush()
            os.fsync(f.fileno())
        os.replace(tmp, out)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise
    print(f"wrote {out}: {len(tensors)} tensors, {offset} bytes of data")
    for s in skipped:
        print(f"left out {s}")


if __name__ == "__main__":
    main()
