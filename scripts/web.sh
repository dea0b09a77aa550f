#!/usr/bin/env bash
# web.sh: builds the lesson book into build/web/ (index.html, one page per lesson, lessons.js with
# the C++ compiled to WebAssembly), with Debian's emscripten (apt-get install emscripten node-acorn).
# Open build/web/index.html in a browser; nothing is fetched from the network.
# Usage: scripts/web.sh [--clean]   (--clean: rebuild from scratch)
set -euo pipefail
cd "$(dirname "$0")/.."
if ! command -v emcmake >/dev/null || ! command -v em++ >/dev/null; then
  echo "error: emscripten not found: apt-get install emscripten node-acorn (or SCRATCHGPT_WITH_WEB=1 scripts/bootstrap.sh)" >&2
  exit 1
fi
# emscripten's JavaScript optimiser needs acorn, which Debian installs under /usr/share/nodejs.
export NODE_PATH="${NODE_PATH:+$NODE_PATH:}/usr/share/nodejs"
if [[ "${1:-}" == "--clean" ]]; then rm -rf build/web-cmake build/web; fi
launcher=()
if command -v ccache >/dev/null; then launcher=(-DCMAKE_CXX_COMPILER_LAUNCHER=ccache); fi
emcmake cmake -S web -B build/web-cmake -DCMAKE_BUILD_TYPE=Release "${launcher[@]}" >/dev/null
cmake --build build/web-cmake -j"$(nproc)"
total=$(cat build/web/*.js | wc -c)
echo "build/web: $(ls build/web/*.html | wc -l) pages, .js+.wasm $((total / 1024)) KiB; open build/web/index.html"
