"""The seed's recurrent attention models (tests/reference/seed_rnn.py) against ours on the same weights, ids,
thread count, warm-up and median method: `--write DIR` saves the weights `attnscope bench --only recurrent
--recurrent-weights DIR` reads; `--ours FILE` times the seed's modules on them and prints both side by side
with what that bench printed as JSON.

classifier  a keystroke: AttentionTextClassifier over 64 tokens (its forward: embedding, packed BiLSTM,
            pooling with the padding mask, logits), batch 1, eval mode (no dropout), no_grad
encode      EncoderRNN over a 64-token source
step        one AttentionDecoderRNN step over the 64 encoder states, its hidden state moving on
"""
import argparse
import json
import sys
from pathlib import Path

import torch

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests" / "reference"))
import safetensors_np  # noqa: E402
import seed_runner  # noqa: E402
from bench_train_seed import openblas_kernels  # noqa: E402
from bench_vs_seed import measure  # noqa: E402

LENGTH = 64
CLF = dict(vocab=10000, embed=100, hidden=128, classes=2)
GRU = dict(vocab=8000, hidden=256)


def build(rnn):
    torch.manual_seed(1)
    clf = rnn.AttentionTextClassifier(CLF["vocab"], CLF["embed"], CLF["hidden"], CLF["classes"]).eval()
    enc = rnn.EncoderRNN(GRU["vocab"], GRU["hidden"]).eval()
    dec = rnn.AttentionDecoderRNN(GRU["hidden"], GRU["vocab"]).eval()
    return clf, enc, dec


def write(rnn, d):
    clf, enc, dec = build(rnn)
    d.mkdir(parents=True, exist_ok=True)
    safetensors_np.save(d / "classifier.safetensors",
                        {k: v.detach().contiguous().numpy() for k, v in clf.state_dict().items()})
    both = {"encoder." + k: v for k, v in enc.state_dict().items()}
    both.update({"decoder." + k: v for k, v in dec.state_dict().items()})
    safetensors_np.save(d / "translator.safetensors", {k: v.detach().contiguous().numpy() for k, v in both.items()})


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--write")
    ap.add_argument("--ours")
    ap.add_argument("--threads", type=int)
    args = ap.parse_args()
    rnn = seed_runner.import_reference("seed_rnn")
    if args.write:
        write(rnn, Path(args.write))
        return
    ours = json.loads(Path(args.ours).read_text())
    torch.set_num_threads(args.threads)
    rec = ours["recurrent"]
    clf, enc, dec = build(rnn)
    clf.load_state_dict({k: torch.from_numpy(v.copy()) for k, v in
                         safetensors_np.load(Path(rec["weights"]) / "classifier.safetensors").items()}, strict=True)
    both = safetensors_np.load(Path(rec["weights"]) / "translator.safetensors")
    for name, module in (("encoder", enc), ("decoder", dec)):
        module.load_state_dict({k[len(name) + 1:]: torch.from_numpy(v.copy()) for k, v in both.items()
                                if k.startswith(name + ".")}, strict=True)
    # The ids app/bench/BenchRecurrent.cpp feeds.
    tokens = torch.tensor([[4 + (i * 37) % (CLF["vocab"] - 4) for i in range(LENGTH)]])
    src = torch.tensor([[4 + (i * 53) % (GRU["vocab"] - 4) for i in range(LENGTH)]])
    lengths = torch.tensor([LENGTH])
    warmup, runs = ours["warmup"], ours["runs"]
    state = {}

    def encode():
        state["out"], state["hidden"] = enc(src)

    def step():
        _, state["hidden"], _ = dec(torch.tensor([[1]]), state["hidden"], state["out"])

    with torch.no_grad():
        seed = {"classifier_keystroke": measure(lambda: clf(tokens, lengths), warmup, runs),
                "translator_encode": measure(encode, warmup, runs),
                "translator_step": measure(step, warmup, runs)}
    m = ours["machine"]
    print(f"the seed's recurrent models vs ours: median [min-max] ms of {runs} runs after {warmup} warm-up")
    print(f"ours  {m['threads']} threads, OpenBLAS {m['openblas'] or 'not in use'}, LibTorch {m['torch']}")
    print(f"seed  {torch.get_num_threads()} threads, OpenBLAS {openblas_kernels()}, PyTorch {torch.__version__}")
    print(f"x     the seed's median over ours\n")
    for row in rec["rows"]:
        s = seed[row["id"]]
        print(f"{row['label']:<74} ours {row['median']:7.3f} [{row['min']:.3f}-{row['max']:.3f}]   "
              f"seed {s['median']:7.3f} [{s['min']:.3f}-{s['max']:.3f}]   {s['median'] / row['median']:5.2f}x")


if __name__ == "__main__":
    main()
