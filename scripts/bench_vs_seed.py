"""Times the seed's PyTorch Transformer (tests/reference/seed_transformer.py) on what `attnscope bench --greedy N --json`
measured, and prints both side by side: the same model directories (loaded with load_state_dict), the same
token ids, the same thread count, warm-up and median method.

analysis  ours: Model::analyze with capture. Seed: its forward pass, teacher-forced, and the next-token
          distribution; its MultiHeadedAttention keeps every probability tensor in `self.attn`, so collecting
          those after the pass is its capture (ours copies them into the snapshot besides).
greedy    ours: encode, then N KV-cached steps. Seed: encode, then the decoding loop of its inference_test
          (the Annotated Transformer's greedy_decode), which runs the decoder over the whole prefix every
          step. Both under no_grad in eval mode, starting from <bos>.
"""
import argparse
import json
import statistics
import sys
import time
from pathlib import Path

import torch

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests" / "reference"))
import safetensors_np  # noqa: E402
import seed_runner  # noqa: E402
from bench_train_seed import openblas_kernels  # noqa: E402

# The targets the performance work set itself (README, "Performance"): ahead of the seed at every length.
TARGETS = {64: {"greedy": 8.0, "analysis": 2.5}, 1024: {"greedy": 6.0, "analysis": 1.5}}


def bench_ids(n, vocab, salt):
    """The ids attnscope bench feeds (app/bench/BenchModels.h): never one of the specials 0..3."""
    span = max(1, vocab - 4)
    return [4 + ((i + 1) * 7919 + salt * 104729) % span for i in range(n)]


def load_seed_model(seed, d):
    c = json.loads((d / "config.json").read_text())
    supported = (c["architecture"] == "encoder_decoder" and c["positional_encoding"] == "sinusoidal"
                 and c["layer_norm"] == "seed" and c["activation"] == "relu" and c["scale_embeddings"]
                 and c["encoder_layers"] == c["decoder_layers"])
    if not supported:
        sys.exit(f"{d}: only the seed's architecture can be loaded into the seed's code")
    model = seed.make_model(c["src_vocab_size"], c["tgt_vocab_size"], n=c["encoder_layers"],
                            d_model=c["d_model"], d_ff=c["d_ff"], h=c["heads"])
    state = {k: torch.from_numpy(v.copy()) for k, v in safetensors_np.load(d / "model.safetensors").items()}
    # The seed has no shared or tied tables: it gets copies of the one table, and a zero generator bias.
    if c["share_embeddings"]:
        state.setdefault("tgt_embed.0.lut.weight", state["src_embed.0.lut.weight"])
    if c["tie_output"]:
        state.setdefault("generator.proj.weight", state["tgt_embed.0.lut.weight"])
        state.setdefault("generator.proj.bias", torch.zeros(c["tgt_vocab_size"]))
    # The seed's sinusoidal tables have 5000 rows, ours max_len: ours go into the rows they share, so both
    # add exactly the same numbers.
    tables = {"src_embed.1.pe": model.src_embed[1], "tgt_embed.1.pe": model.tgt_embed[1]}
    for name, module in tables.items():
        if name in state:
            pe = state.pop(name)
            module.pe[:, : pe.shape[1]] = pe
    missing, unexpected = model.load_state_dict(state, strict=False)
    if set(missing) - set(tables) or unexpected:
        sys.exit(f"{d}: load_state_dict: missing {missing}, unexpected {unexpected}")
    model.eval()
    vocab = json.loads((d / c["tokenizer"]["tgt_vocab"]).read_text())
    return c, model, vocab["<bos>"], vocab["<pad>"]


def measure(body, warmup, runs):
    for _ in range(warmup):
        body()
    samples = []
    for _ in range(runs):
        t0 = time.perf_counter()
        body()
        samples.append((time.perf_counter() - t0) * 1e3)
    return {"median": statistics.median(samples), "min": min(samples), "max": max(samples)}


def seed_cell(seed, model, c, bos, pad, length, greedy, warmup, runs):
    src = torch.LongTensor([bench_ids(length, c["src_vocab_size"], 1)])
    tgt = torch.LongTensor([[bos] + bench_ids(length - 1, c["tgt_vocab_size"], 2)])

    def analysis():
        src_mask = (src != pad).unsqueeze(-2)
        tgt_mask = (tgt != pad).unsqueeze(-2) & seed.subsequent_mask(tgt.size(-1)).type_as(src_mask)
        hidden = model(src, tgt, src_mask, tgt_mask)
        logp = model.generator(hidden[:, -1])
        attn = ([layer.self_attn.attn for layer in model.encoder.layers]
                + [layer.self_attn.attn for layer in model.decoder.layers]
                + [layer.src_attn.attn for layer in model.decoder.layers])
        return logp, attn

    tokens = []

    def greedy_decode():
        src_mask = (src != pad).unsqueeze(-2)
        memory = model.encode(src, src_mask)
        ys = torch.zeros(1, 1).type_as(src).fill_(bos)
        for _ in range(greedy):
            out = model.decode(memory, src_mask, ys, seed.subsequent_mask(ys.size(1)).type_as(src.data))
            prob = model.generator(out[:, -1])
            _, next_word = torch.max(prob, dim=1)
            next_word = next_word.data[0]
            ys = torch.cat([ys, torch.empty(1, 1).type_as(src.data).fill_(next_word)], dim=1)
        tokens[:] = ys[0, 1:].tolist()

    with torch.no_grad():
        return measure(analysis, warmup, runs), measure(greedy_decode, warmup, runs), tokens


def cell(stat):
    v = stat["median"]
    f = (lambda x: f"{x:.0f}") if v >= 100 else (lambda x: f"{x:.1f}") if v >= 10 else (lambda x: f"{x:.2f}")
    return f"{f(v)} [{f(stat['min'])}-{f(stat['max'])}]"


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--ours", required=True,
                    help="what attnscope bench --only table --greedy N --json printed")
    ap.add_argument("--threads", type=int, required=True)
    args = ap.parse_args()
    ours = json.loads(Path(args.ours).read_text())
    torch.set_num_threads(args.threads)
    warmup, runs, greedy = ours["warmup"], ours["runs"], ours["greedy"]
    seed = seed_runner.import_seed()
    m = ours["machine"]
    print(f"attnscope vs the seed's PyTorch code: median [min-max] ms of {runs} runs after {warmup} warm-up")
    print(f"ours      {m['threads']} threads, OpenBLAS {m['openblas'] or 'not in use'}, "
          f"LibTorch {m['torch']}, packed weights {m.get('packed_weights', 'not reported')}")
    print(f"seed      {torch.get_num_threads()} threads, OpenBLAS {openblas_kernels()}, "
          f"PyTorch {torch.__version__}")
    print("speed-up  the seed's median over ours; greedy: N tokens after a source of T tokens, "
          "'same' counts the tokens both decoded alike\n")
    head = (f"{'model':<8} {'T':>5}  {'analysis ours':<22} {'seed':<22} {'x':>6}   "
            f"{'greedy ' + str(greedy) + ' ours':<22} {'seed':<22} {'x':>6}  same")
    print(head)
    verdicts = []
    for size in ours["sizes"]:
        d = Path(size["id"])
        c, model, bos, pad = load_seed_model(seed, d)
        for k in size["cells"]:
            if "skipped" in k:
                continue
            rows = {r["id"]: r for r in k["rows"]}
            a_ours, g_ours = rows["analysis"], rows["greedy"]
            a_seed, g_seed, tokens = seed_cell(seed, model, c, bos, pad, k["T"], greedy, warmup, runs)
            a_x, g_x = a_seed["median"] / a_ours["median"], g_seed["median"] / g_ours["median"]
            same = sum(a == b for a, b in zip(tokens, k["greedy_tokens"]))
            print(f"{size['name']:<8} {k['T']:>5}  {cell(a_ours):<22} {cell(a_seed):<22} {a_x:>5.2f}x   "
                  f"{cell(g_ours):<22} {cell(g_seed):<22} {g_x:>5.2f}x  {same}/{greedy}", flush=True)
            for what, x in (("greedy", g_x), ("analysis", a_x)):
                target = TARGETS.get(k["T"], {}).get(what)
                if target:
                    verdicts.append(f"{size['name']} T={k['T']} {what}: {x:.2f}x, target {target:g}x: "
                                    f"{'met' if x >= target else 'NOT met'}")
            if k["T"] == 64:
                per_ours, per_seed = g_ours["median"] / greedy, g_seed["median"] / greedy
                verdicts.append(f"{size['name']} T=64 per greedy token: ours {per_ours:.2f} ms, "
                                f"seed {per_seed:.2f} ms")
    if verdicts:
        print("\n" + "\n".join(verdicts))


if __name__ == "__main__":
    main()
