#!/usr/bin/env bash
# quickstart.sh: installs what is missing, builds, prepares the bundled Tiny Shakespeare, trains
# the default small character-level GPT (nanoGPT's CPU recipe, 2000 steps: about a minute on two
# free cores), prints its loss over the whole validation split and a sample from it.
# Usage: scripts/quickstart.sh [extra 'scratchgpt train' options, e.g. --max-iters 500]
# SCRATCHGPT_QUICK_ITERS=N trains N steps instead of the recipe's 2000 (a smoke test).
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/bootstrap.sh
cmake --preset release >/dev/null
cmake --build --preset release -j "$(nproc)" --target scratchgpt
bin=build/release/scratchgpt
iters=()
if [[ -n "${SCRATCHGPT_QUICK_ITERS:-}" ]]; then iters=(--max-iters "$SCRATCHGPT_QUICK_ITERS"); fi
$bin prepare --input data/tinyshakespeare.txt --out-dir out/data/tinyshakespeare
$bin train --preset shakespeare-char-small --data-dir out/data/tinyshakespeare \
  --out-dir out/shakespeare-char-small --overwrite "${iters[@]}" "$@"
$bin eval --checkpoint out/shakespeare-char-small/best.safetensors \
  --data-dir out/data/tinyshakespeare
$bin sample --checkpoint out/shakespeare-char-small/best.safetensors --num-tokens 500 --seed 1337
