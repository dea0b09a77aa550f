#!/usr/bin/env bash
# web_gpt.sh: builds the book's trained-GPT page with Debian's emscripten into build/web/
# (gpt.html, gpt.css, gpt_page.js, gpt.js: the engine, its wasm and the checkpoint inside).
#   scripts/web_gpt.sh [--model CHECKPOINT.safetensors]
# --model bundles another GPT checkpoint (default: web/gpt/model/model.safetensors, which
# scripts/train_book_model.sh makes). Open build/web/gpt.html from disk: nothing is fetched.
# Leaves out: the lesson pages (scripts/web.sh builds the whole book).
set -euo pipefail
cd "$(dirname "$0")/.."
model=""
while [ $# -gt 0 ]; do
  case "$1" in
    --model) model=$(realpath "$2"); shift 2 ;;
    *) echo "error: unknown option $1 (usage: scripts/web_gpt.sh [--model CHECKPOINT])" >&2; exit 2 ;;
  esac
done
command -v emcmake >/dev/null || { echo "error: emscripten not found: apt-get install emscripten" >&2; exit 1; }
export NODE_PATH=${NODE_PATH:-/usr/share/nodejs}  # emscripten's JS optimiser needs acorn (node-acorn)
model=${model:-$PWD/web/gpt/model/model.safetensors}  # always given: the cache keeps the last
emcmake cmake -S web -B build/web -DCMAKE_BUILD_TYPE=Release -DSCRATCHGPT_BOOK_MODEL="$model" >/dev/null
cmake --build build/web -j"${JOBS:-2}" --target gpt_web
ls -l build/web/gpt.html build/web/gpt.js
