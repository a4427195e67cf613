"""A minimal safetensors reader/writer on numpy, independent of the C++ one, so each checks the other."""
import json
import struct

import numpy as np

_DTYPES = {"F32": (np.float32, 4), "F16": (np.float16, 2), "BF16": (None, 2)}


def save(path, tensors, metadata=None):
    header, offset, blobs = {}, 0, []
    for name in sorted(tensors):
        a = np.ascontiguousarray(tensors[name], dtype=np.float32)
        header[name] = {"dtype": "F32", "shape": list(a.shape), "data_offsets": [offset, offset + a.nbytes]}
        offset += a.nbytes
        blobs.append(a.tobytes())
    if metadata:
        header["__metadata__"] = metadata
    h = json.dumps(header, separators=(",", ":")).encode()
    h += b" " * (-len(h) % 8)
    with open(path, "wb") as f:
        f.write(struct.pack("<Q", len(h)))
        f.write(h)
        for b in blobs:
            f.write(b)


def load(path):
    with open(path, "rb") as f:
        data = f.read()
    if len(data) < 8:
        raise ValueError(f"{path}: too short")
    (n,) = struct.unpack("<Q", data[:8])
    if n > len(data) - 8:
        raise ValueError(f"{path}: header length {n} runs past the end")
    header = json.loads(data[8:8 + n])
    body = data[8 + n:]
    out = {}
    for name, e in header.items():
        if name == "__metadata__":
            continue
        dtype, size = _DTYPES.get(e["dtype"], (None, 0))
        if size == 0:
            raise ValueError(f"{path}: tensor {name}: unsupported dtype {e['dtype']}")
        b, end = e["data_offsets"]
        count = int(np.prod(e["shape"], dtype=np.int64))
        if end > len(body) or end - b != count * size:
            raise ValueError(f"{path}: tensor {name}: bad data_offsets {e['data_offsets']}")
        raw = body[b:end]
        if e["dtype"] == "BF16":
            a = (np.frombuffer(raw, dtype="<u2").astype(np.uint32) << 16).view(np.float32)
        else:
            a = np.frombuffer(raw, dtype=dtype).astype(np.float32)
        out[name] = a.reshape(e["shape"])
    return out
