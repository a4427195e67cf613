#include "app/bench/BenchHelp.h"

const char* const kBenchHelp =
    R"(usage: attnscope bench [--model DIR] [--src TEXT] [--sizes LIST] [--lengths LIST] [--runs N]
                       [--warmup W] [--quick] [--threads N] [--greedy N] [--long-length N] [--only PART]
                       [--no-gui] [--json]

Times what the window does, in eight sections. Loading and creating models is not timed. Every measure has
W untimed warm-up runs, then N timed runs, and gives their median, min and max. Widgets are painted
offscreen (QT_QPA_PLATFORM=offscreen unless that variable says otherwise).

translation  a sentence typed and decoded to the end through the session, as the window drives it
             (tokenize and encode, greedy steps with the KV cache until <eos> or max_len, every attention
             row captured, then the snapshot the views are given), on the model's own weights
table        for each model size and length T, on fixed token ids:
  analysis     encode T source tokens and decode T target tokens teacher-forced (for a decoder-only
               model, a T-token prompt; for an encoder-only one, a T-token text), every attention
               captured, and the next-token distribution
  capture off  the same analysis without capture; capture cost is on / off, run by run
  snapshot     megabytes of the captured attention and log-probabilities of the analysis
  decode step  one KV-cached step at position T after T tokens, captured as the window steps (none for
               an encoder-only model)
               (at max_len - 1 when T fills the context)
  greedy       with --greedy N: encode the source, then decode N tokens greedily (encoder-decoder only)
  paint grid   the layer x head grid given the analysis's snapshot and painted, every head and the means,
               at its size in the window (487x570); cross-attention, or decoder self-attention for a
               decoder-only model. All tiles pooled at once (the window spreads a large block's pooling
               over 25 ms slices)
  paint detail the same for the detail heatmap of layer 0, head 0 (599x570)
keystroke    --model's text of T = 64 and T = 1024 tokens set in the window's attention page (1378x785),
             until its grid and heatmap have repainted: the analysis on the worker thread, the queued
             result, the page's repaint; the 30 ms typing debounce is left out. A T beyond the model's
             max_len runs on random weights of its shape and tokenizer with max_len raised to T.
             Targets for the median: 16 ms at T = 64, 100 ms at T = 1024
long         GPT-2 small's shape (random weights, max_len raised to T) given a text of T tokens
             (--long-length, default 2048) in the same page, until its grid and heatmap have repainted;
             then the detail view switched to layer 11 head 5 and layer 0 head 0 in turn, until the page
             has repainted. For each, the longest stall: the longest the GUI thread went without getting
             back to its event loop (the longest gap between ticks of a 5 ms timer, less 5 ms). Also the
             snapshot's megabytes and the process's peak resident memory. With --long-model, also the folder
             opened as the window opens it (ModelLoader, off the GUI thread) until the model is back on the
             GUI thread, with the longest stall meanwhile. 3 timed runs after 1 warm-up
             unless --runs or --warmup say otherwise (--quick: 1 after 0).
             Targets: longest stall <= 100 ms, snapshot <= 1 GiB
inside       the Inside page following a change of row or (alternately) head: the row recomputed as the
             worker does (Session::inside, the sampling pipeline) and drawn until the page (1380x760) has
             repainted; cross-attention of the default size at T = 64 (a 64-token source and target) and
             decoder self-attention of GPT-2 small's shape at T = 1024 (a 1,024-token prompt), last layer.
             Targets for the median: 30 ms at T = 64, 100 ms at T = 1024
analyses     what the Rollout, Ablation and Compare pages cost: a head switched off in a run of the default
             model at T = 64 (64-token source and target): the run again with it off, its snapshot and the
             next-token effect, as the worker does before the window repaints; the greedy outputs with and
             without; value-weighted blocks; rollout, and attention flow of encoder and cross-attention at
             64 x 64; a sweep of every head; rollout of GPT-2 small's shape at T = 1024 after its analysis.
             Targets for the median: re-run 20 ms, rollout 100 ms
recurrent    the seed's recurrent attention models, as modules: the attention-pooling classifier on a
             keystroke of 64 tokens (vocabulary 10,000, embeddings 100, 128 hidden units a direction, 2
             classes), and the GRU translator (256 hidden units, vocabularies 8,000) encoding a 64-token
             source and taking one decode step over it
products     the matrix products one layer makes, alone: 64 rows (a keystroke), one row (a decode step) and
             1,024 rows against weights of the built-in model's and the medium shape, through OpenBLAS's
             sgemm_ (which packs the weight on every call; sgemv_ for one row, as LibTorch's path) and
             through the weight packed once for oneDNN
             (what the models run on; ATTNSCOPE_PACKED_WEIGHTS=0 switches that off)
soak         (only with --only soak: it takes minutes) --model and the shipped language model in turn, each
             turn a new sentence analysed and 5 steps decoded, a snapshot after each, until --soak-steps
             steps (default 10000) and --soak-analyses analyses (default 2000); resident memory, file
             descriptors and threads every 100 analyses after a 10 % warm-up.
             Targets: resident memory within 5 % of the first sample; descriptors and threads flat

  --model DIR     the translation model, and the shape of the "default" size (default: the built-in
                  default model)
  --src TEXT      the source sentence (default: a 20-word everyday English sentence)
  --sizes LIST    comma-separated, each one of
                    default  the shape of --model, random weights; max_len raised to fit the longest T
                    medium   encoder-decoder, 6+6 layers, d_model 512, 8 heads, d_ff 2048, vocab 8000,
                             random weights (the seed's make_model defaults); max_len as for default
                    gpt2     GPT-2 small's shape: decoder-only, 12 layers, d_model 768, 12 heads, d_ff 3072,
                             vocab 50257, learned positions, max_len 1024, random weights
                    llama    SmolLM2-135M's shape (the Llama family): decoder-only, 30 layers, d_model 576,
                             9 query heads sharing 3 key/value heads, SwiGLU d_ff 1536, RMSNorm, rotary
                             positions (theta 100000), vocab 49152, tied output, random weights
                    bert     BERT-base's shape: encoder-only, 12 post-norm layers, d_model 768, 12 heads,
                             d_ff 3072, GELU, vocab 30522, learned positions, max_len 512, the masked-LM
                             head; random weights (no decode step: it decodes nothing)
                    marian   opus-mt-en-de's shape (Marian): encoder-decoder, 6+6 post-norm layers,
                             d_model 512, 8 heads, d_ff 2048, swish, vocab 58101 shared by both sides
                             and the output, sinusoidal positions in halves, max_len 512; random weights
                    DIR      a model directory, with its own weights and max_len
                  (default: default,medium,gpt2)
  --lengths LIST  comma-separated lengths T, 1 to 65536 (default: 16,64,256,1024)
  --runs N        timed runs, at least 1 (default 20; the long section 3)
  --warmup W      untimed runs before them, 0 or more (default 3; the long section 1)
  --quick         1 warm-up and 3 timed runs (the long section: 1 run, no warm-up), unless --warmup or
                  --runs say otherwise: a check that it works, not numbers to quote
  --threads N     intra-op threads, at least 1 (default: every core, as the program uses)
  --greedy N      add the greedy row, N from 1 to 4096 (scripts/bench-vs-seed.sh compares it with the
                  seed's decoding loop)
  --long-length N the long section's T, 2 to 4096 (default 2048)
  --long-model DIR  a decoder-only or encoder-only model for the long section instead of the random
                  GPT-2 shape (a GPT-2 or BERT checkpoint, say), its weights and max_len as they are
  --only PART     translation, table, keystroke, long, inside, analyses, recurrent, products or soak: run that
                  section alone
  --recurrent-weights DIR  the recurrent section's weights (classifier.safetensors, translator.safetensors
                  in the shapes above; scripts/bench-recurrent-vs-seed.sh writes them) instead of random
  --soak-steps N, --soak-analyses N  the soak's totals
  --no-gui        leave out what paints widgets: the paint rows and the keystroke, long and inside sections
  --json          print the same as one JSON object
Exit status: 0 on success, 2 on bad arguments or input.
)";

const char* const kBenchTableLegend =
    R"(   encoder-decoder: T source tokens and T target tokens; decoder-only: a T-token prompt;
   encoder-only: a T-token text.
   Times in ms as median [min-max]; capture cost as the ratio on / off; the decode step at position T.
)";
