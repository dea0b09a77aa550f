#!/usr/bin/env bash
# quickstart.sh: installs what is missing, builds, prepares the bundled Tiny Shakespeare, trains
# the default small character-level GPT for a short while and prints a sample from it.
# Usage: scripts/quickstart.sh [extra 'scratchgpt train' options, e.g. --max-iters 2000]
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/bootstrap.sh
cmake --preset release >/dev/null
cmake --build --preset release -j "$(nproc)" --target scratchgpt
bin=build/release/scratchgpt
$bin prepare --input data/tinyshakespeare.txt --out-dir out/data/tinyshakespeare
$bin train --preset shakespeare-char-small --data-dir out/data/tinyshakespeare \
  --out-dir out/shakespeare-char-small --max-iters "${SCRATCHGPT_QUICK_ITERS:-500}" --overwrite "$@"
$bin sample --checkpoint out/shakespeare-char-small/best.safetensors --num-tokens 500 --seed 1337
