"""Builds the seed's recurrent attention models (seed_rnn.py) with fixed torch seeds, saves their state_dicts
as safetensors and writes what they compute on fixed inputs, for test_rnnparity:
  classifier.safetensors  AttentionTextClassifier(vocab 30, embed 12, hidden 10, classes 3)
  translator.safetensors  EncoderRNN(25, 16) under encoder.*, AttentionDecoderRNN(16, 28) under decoder.*
  additive.safetensors    the same shapes with additive_rnn's decoder (Bahdanau's score)
  reference.json          logits and attention of a padded batch of three lengths; the translator's
                          log-probabilities and attention at each step of a teacher-forced decode
With --ours DIR it instead loads DIR's two files into the seed's modules with load_state_dict(strict=True)
and writes the same outputs for them."""
import argparse
import json
from pathlib import Path

import seed_runner  # first: it turns a missing PyTorch or NumPy into a skip
import torch  # noqa: E402

import additive_rnn  # noqa: E402
import safetensors_np  # noqa: E402

TOKENS = [[3, 4, 5, 6, 7, 8], [9, 10, 11, 0, 0, 0], [12, 13, 14, 15, 0, 0]]
LENGTHS = [6, 3, 4]
SRC = [1, 5, 6, 7, 8, 9, 2]
TGT = [1, 10, 11, 12, 13]


def decode(enc, dec):
    enc.eval()
    dec.eval()
    with torch.no_grad():
        outputs, hidden = enc(torch.tensor([SRC]))
        steps = []
        for t in TGT:
            logp, hidden, attn = dec(torch.tensor([[t]]), hidden, outputs)
            steps.append({"input": t, "log_probs": logp[0].tolist(), "attention": attn[0].tolist()})
    return {"src": SRC, "steps": steps}


def run(clf, translators):
    clf.eval()
    # The seed's module as it runs: what its attention layer reads (the BiLSTM's outputs, padded) and scores.
    seen = {}
    hook = clf.attention.register_forward_hook(
        lambda module, inputs, output: seen.update(states=inputs[0], scores=output.squeeze(2)))
    with torch.no_grad():
        logits, weights = clf(torch.tensor(TOKENS), torch.tensor(LENGTHS))
        # Each token's share of each logit: weight_t * (fc.weight @ state_t), [B][K][T].
        shares = (weights.unsqueeze(2) * (seen["states"] @ clf.fc.weight.T)).transpose(1, 2)
    hook.remove()
    out = {"classifier": {"tokens": TOKENS, "lengths": LENGTHS, "logits": logits.tolist(),
                          "attention": weights.tolist(), "scores": seen["scores"].tolist(),
                          "before_mask": torch.softmax(seen["scores"], 1).tolist(),
                          "bias": clf.fc.bias.tolist(), "contributions": shares.tolist()}}
    for name, (enc, dec) in translators.items():
        out[name] = decode(enc, dec)
    return out


def load_translator(path, enc, dec):
    both = safetensors_np.load(path)
    for name, module in (("encoder", enc), ("decoder", dec)):
        part = {k[len(name) + 1:]: torch.from_numpy(v.copy()) for k, v in both.items()
                if k.startswith(name + ".")}
        module.load_state_dict(part, strict=True)
    if len(both) != len(enc.state_dict()) + len(dec.state_dict()):
        raise SystemExit(f"{path} holds tensors the seed's modules do not have")


def save_translator(path, enc, dec):
    both = {"encoder." + k: v for k, v in enc.state_dict().items()}
    both.update({"decoder." + k: v for k, v in dec.state_dict().items()})
    safetensors_np.save(path, {k: v.detach().contiguous().numpy() for k, v in both.items()}, {"format": "pt"})


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--out", required=True)
    ap.add_argument("--ours")
    args = ap.parse_args()
    rnn = seed_runner.import_reference("seed_rnn")
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    torch.manual_seed(5)
    clf = rnn.AttentionTextClassifier(30, 12, 10, 3)
    torch.manual_seed(6)
    translators = {"translator": (rnn.EncoderRNN(25, 16), rnn.AttentionDecoderRNN(16, 28))}
    torch.manual_seed(7)
    translators["additive"] = (rnn.EncoderRNN(25, 16), additive_rnn.additive_decoder(rnn, 16, 28))
    if args.ours:
        ours = Path(args.ours)
        state = safetensors_np.load(ours / "classifier.safetensors")
        clf.load_state_dict({k: torch.from_numpy(v.copy()) for k, v in state.items()}, strict=True)
        for name, (enc, dec) in list(translators.items()):
            if (ours / f"{name}.safetensors").exists():
                load_translator(ours / f"{name}.safetensors", enc, dec)
            else:
                del translators[name]
    else:
        safetensors_np.save(out / "classifier.safetensors",
                            {k: v.detach().contiguous().numpy() for k, v in clf.state_dict().items()},
                            {"format": "pt"})
        for name, (enc, dec) in translators.items():
            save_translator(out / f"{name}.safetensors", enc, dec)
    (out / "reference.json").write_text(json.dumps(run(clf, translators)))
    sizes = ", ".join(f"{name} {len(enc.state_dict()) + len(dec.state_dict())}"
                      for name, (enc, dec) in translators.items())
    print(f"{'loaded ours strictly' if args.ours else 'wrote'}: classifier {len(clf.state_dict())} tensors, "
          f"{sizes}")


if __name__ == "__main__":
    main()
