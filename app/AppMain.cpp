// attnscope: the GUI by default; `dump`, `convert`, `init` and `train` for the terminal. The executable is
// a small launcher (Launcher.cpp) that sets up the environment the numeric libraries read while loading,
// then loads this library and calls attnscope_main.

#include "app/AppMain.h"
#include "app/Commands.h"

#include "core/base/BlasCore.h"
#include "core/base/Runtime.h"

#include <cstring>
#include <iostream>
#include <string>
#include <vector>

namespace {
const char* kHelp = R"(attnscope — look inside Transformers

usage: attnscope [--model DIR] [--src TEXT]
                                        open the window (default: the model used last)
       attnscope --screenshot FILE.png|svg|pdf [--model DIR] [--src TEXT] [--steps N] [--tab T] [--kind K]
                                        render the window offscreen to a picture (--help for all options)
       attnscope dump --model DIR ...   write every attention weight of one run as JSON (--ablate L:H,…
                                        with those heads switched off)
       attnscope explain --model DIR ... --kind K --layer L --head H [--row I]
                                        the computation behind one row of weights (Q, K, V, scores,
                                        mask, softmax, weighted sum, W_O) and the sampling pipeline
       attnscope convert --model DIR --out DIR [--dtype f16|f32]
                                        write a model again with its weights as F16 (half the size)
       attnscope eval --model DIR --pairs FILE.tsv
                                        BLEU and chrF of a translation model, overall and per source
       attnscope eval --model DIR --text FILE.txt
                                        a language model's perplexity on held-out text
       attnscope eval --model DIR --labels FILE.tsv
                                        a classifier's accuracy, precision and recall
       attnscope align --model DIR --model DIR --src TEXT [--layer L] [--head H]
                                        one sentence through two translation models: each output
                                        token's attention over the source, as JSON
       attnscope rollout --model DIR --src TEXT [--kind K] [--flow]
                                        attention rollout (and flow) through every layer, as JSON
       attnscope ablate --model DIR --src TEXT (--ablate L:H,… | --sweep)
                                        what switching heads off changes: KL of the next token,
                                        the greedy output with and without; --sweep: each head alone
       attnscope lens --model DIR --src TEXT [--tgt TEXT | --greedy N] [--token ID]
                                        the logit lens: the residual stream after every sublayer read
                                        through the final norm and unembedding, as JSON
       attnscope attribute --model DIR --src TEXT [--position P] [--token ID] [--versus ID]
                                        direct logit attribution: each head's, MLP's and the
                                        embeddings' share of a token's logit, as JSON
       attnscope lesson --file LESSON.json [--play [--order N,N,…] [--shots DIR]]
                                        a lesson's steps as JSON; --play replays them in the window
                                        offscreen, each step's state and caption with live numbers
       attnscope heads --model DIR [--sort COLUMN] [--top N] [--json]
                                        score every decoder head: entropy, distance, first-token,
                                        previous-token and induction scores
       attnscope init --config FILE --out DIR [--seed N]
                                        write a randomly initialised model directory
       attnscope bench [--sizes LIST] [--lengths LIST] [--runs N] [--quick] [--json]
                                        translation latency, and analysis and decode-step cost by
                                        model size and length: median, min and max
       attnscope bench-train --recipe FILE.json [--steps N]
                                        training throughput (scripts/bench-train-vs-seed.sh)
       attnscope train --recipe FILE.json [--out DIR] [--steps N]
                                        train a model on a task, a translation corpus or English text;
                                        Ctrl-C saves, --resume continues
       attnscope --version
Run `attnscope COMMAND --help` for a command's options.
)";
} // namespace

int attnscope_main(int argc, char** argv) {
    std::vector<std::string> args(argv + 1, argv + argc);
    if (!args.empty()) {
        const auto& cmd = args.front();
        const std::vector<std::string> rest(args.begin() + 1, args.end());
        if (cmd == "--help" || cmd == "-h" || cmd == "help") {
            std::cout << kHelp;
            return 0;
        }
        if (cmd == "--version") {
            const auto blas = core::blasCoreName();
            std::cout << "attnscope " ATTNSCOPE_VERSION "\n"
                      << (blas.empty() ? std::string("BLAS: not OpenBLAS") : "OpenBLAS kernels: " + blas)
                      << "\nOpenMP idle threads: " << core::ompWaitSetting() << "\n";
            return 0;
        }
        if (cmd == "convert")
            return runConvert(rest);
        if (cmd == "dump")
            return runDump(rest);
        if (cmd == "explain")
            return runExplain(rest);
        if (cmd == "bench")
            return runBench(rest);
        if (cmd == "bench-train")
            return runBenchTrain(rest);
        if (cmd == "eval")
            return runEval(rest);
        if (cmd == "init")
            return runInit(rest);
        if (cmd == "heads")
            return runHeads(rest);
        if (cmd == "align")
            return runAlign(rest);
        if (cmd == "rollout")
            return runRollout(rest);
        if (cmd == "ablate")
            return runAblate(rest);
        if (cmd == "lens")
            return runLens(rest);
        if (cmd == "attribute")
            return runAttribute(rest);
        if (cmd == "lesson")
            return runLesson(rest);
        if (cmd == "train")
            return runTrain(rest);
        if (cmd.rfind("-", 0) != 0) {
            std::cerr << "attnscope: unknown command '" << cmd << "'\n" << kHelp;
            return 2;
        }
    }
    return runGui(argc, argv, args);
}
