"""PyTorch pickled weights for the conversion test, written by torch.save as Hugging Face checkpoints are.

usage: make_pickled_weights.py values OUT_DIR
           OUT_DIR/pytorch_model.bin: float32, float16, bfloat16 and float64 tensors and an int64 buffer, and
           OUT_DIR/expected.f32: every float tensor's values as float32, little-endian, in name order
       make_pickled_weights.py model MODEL_DIR OUT_DIR
           OUT_DIR/pytorch_model.bin: the tensors of MODEL_DIR/model.safetensors (read with safetensors_np,
           independent of the C++ reader), plus an int64 position_ids buffer as BERT checkpoints carry
"""
import struct
import sys
from pathlib import Path

import torch

import safetensors_np


def values(out):
    g = torch.Generator().manual_seed(7)
    sd = {
        "w32": torch.randn(3, 4, generator=g),
        "w16": torch.randn(5, generator=g).half(),
        "wbf": torch.randn(2, 3, generator=g).bfloat16(),
        "w64": torch.randn(2, generator=g).double(),
        "ids": torch.arange(4),
    }
    torch.save(sd, out / "pytorch_model.bin")
    with open(out / "expected.f32", "wb") as f:
        for name in sorted(k for k in sd if sd[k].is_floating_point()):
            for v in sd[name].float().flatten().tolist():
                f.write(struct.pack("<f", v))


def model(src, out):
    sd = {k: torch.tensor(v) for k, v in safetensors_np.load(src / "model.safetensors").items()}
    sd["position_ids"] = torch.arange(8).unsqueeze(0)
    torch.save({"state_dict": sd}, out / "pytorch_model.bin")


if __name__ == "__main__":
    if len(sys.argv) == 3 and sys.argv[1] == "values":
        values(Path(sys.argv[2]))
    elif len(sys.argv) == 4 and sys.argv[1] == "model":
        model(Path(sys.argv[2]), Path(sys.argv[3]))
    else:
        print(__doc__, file=sys.stderr)
        sys.exit(2)
