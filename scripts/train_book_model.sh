#!/usr/bin/env bash
# train_book_model.sh: trains the small character GPT that the book's page runs (web/gpt/) on Tiny
# Shakespeare with the project's own trainer, and writes its weights-only checkpoint (no optimizer
# moments: ~1.3 MB) to web/gpt/model/model.safetensors, or to the path given as $1.
#   scripts/train_book_model.sh [OUT.safetensors]     (env: SCRATCHGPT=path/to/scratchgpt)
# About 5 minutes on 2 busy cores. The page bundles another checkpoint with
#   scripts/web.sh --model OUT.safetensors
# Leaves out: BPE models (the page's tokens are characters; a BPE checkpoint also works but is big).
set -euo pipefail
cd "$(dirname "$0")/.."
bin=${SCRATCHGPT:-build/release/scratchgpt}
out=${1:-web/gpt/model/model.safetensors}
work=out/book_model
[ -x "$bin" ] || { echo "error: no $bin: build it (cmake --build build/release --target scratchgpt) or set SCRATCHGPT" >&2; exit 1; }

"$bin" prepare --input data/tinyshakespeare.txt --out-dir "$work/data"
# 4 layers x 80 wide, 4 heads of 20, context 64: 0.32 M parameters (1.3 MB of float32); 2200
# steps of 12 x 64 characters (1.7 M, about 1.7 passes over the text) at twice the preset's lr.
"$bin" train --preset shakespeare-char-small --data-dir "$work/data" --out-dir "$work/run" \
  --overwrite --n-layer 4 --n-head 4 --n-embd 80 --block-size 64 --batch-size 12 \
  --max-iters 2200 --lr-decay-iters 2200 --lr 2e-3 --min-lr 2e-4 --eval-interval 250 \
  --eval-iters 40 --seed 1337
"$bin" export --format scratchgpt --checkpoint "$work/run/best.safetensors" --out "$out" --overwrite
ls -l "$out"
