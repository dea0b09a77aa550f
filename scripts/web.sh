#!/usr/bin/env bash
# web.sh: builds the lesson book into build/web/ (index.html, one page per lesson, lessons.js with
# the C++ compiled to WebAssembly; gpt/gpt.html, the trained GPT's page, the engine and the model in
# gpt/gpt.js), with Debian's emscripten (apt-get install emscripten node-acorn).
# Open build/web/index.html in a browser; nothing is fetched from the network.
# Usage: scripts/web.sh [--clean] [--model CHECKPOINT.safetensors]
#   --clean  rebuild from scratch
#   --model  the GPT the page runs (default web/gpt/model/model.safetensors, which
#            scripts/train_book_model.sh makes; train your own and bundle it here)
set -euo pipefail
cd "$(dirname "$0")/.."
if ! command -v emcmake >/dev/null || ! command -v em++ >/dev/null; then
  echo "error: emscripten not found: apt-get install emscripten node-acorn (or SCRATCHGPT_WITH_WEB=1 scripts/bootstrap.sh)" >&2
  exit 1
fi
# emscripten's JavaScript optimiser needs acorn, which Debian installs under /usr/share/nodejs.
export NODE_PATH="${NODE_PATH:+$NODE_PATH:}/usr/share/nodejs"
model=$PWD/web/gpt/model/model.safetensors
while (($# > 0)); do
  case "$1" in
    --clean) rm -rf build/web-cmake build/web; shift ;;
    --model)
      [[ -f "${2:-}" ]] || { echo "error: --model needs a checkpoint file, got '${2:-}'" >&2; exit 2; }
      model=$(realpath "$2"); shift 2 ;;
    *) echo "error: unknown option $1 (usage: scripts/web.sh [--clean] [--model CHECKPOINT])" >&2; exit 2 ;;
  esac
done
launcher=()
if command -v ccache >/dev/null; then launcher=(-DCMAKE_CXX_COMPILER_LAUNCHER=ccache); fi
# The model is given every time: CMake's cache would keep the last one.
emcmake cmake -S web -B build/web-cmake -DCMAKE_BUILD_TYPE=Release \
  -DSCRATCHGPT_BOOK_MODEL="$model" "${launcher[@]}" >/dev/null
cmake --build build/web-cmake -j"$(nproc)"
total=$(cat build/web/*.js | wc -c)
gpt=$(cat build/web/gpt/*.js | wc -c)
echo "build/web: $(ls build/web/*.html | wc -l) lesson pages, .js+.wasm $((total / 1024)) KiB;" \
  "gpt/gpt.html: $((gpt / 1024)) KiB with the model; open build/web/index.html"
