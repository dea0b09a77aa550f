#!/usr/bin/env bash
# tokenizer_vs_tiktoken.sh: GPT-2 encoding speed, scratchgpt against OpenAI's tiktoken (npm, WASM),
# alternating (the machines are shared and noisy), on the same text (Tiny Shakespeare x REPEAT).
# Needs `npm install tiktoken` in TIKTOKEN_DIR (default /tmp/tk). Prints MB/s of each and the ratio.
# Usage: bench/tokenizer_vs_tiktoken.sh [BUILD_DIR] [REPEATS] [REPEAT]
set -euo pipefail
cd "$(dirname "$0")/.."
build=${1:-build/ci}
repeats=${2:-3}
repeat=${3:-10}
export NODE_PATH=${TIKTOKEN_DIR:-/tmp/tk}/node_modules
for r in $(seq "$repeats"); do
  ours=$("$build/scratchgpt" bench --tokenizer gpt2 --repeat "$repeat" --threads 2 --json)
  theirs=$(node tools/bench_tiktoken.mjs data/tinyshakespeare.txt "$repeat")
  python3 - "$ours" "$theirs" <<'PY'
import json, sys
o, t = json.loads(sys.argv[1]), json.loads(sys.argv[2])
assert o["tokens"] == t["tokens"], (o["tokens"], t["tokens"])
print(f'scratchgpt 1 thread {o["mb_per_s_1_thread"]:.1f} MB/s ({o["tokens_per_s_1_thread"]/1e6:.2f}M tok/s), '
      f'{o["threads"]} threads {o["mb_per_s_threads"]:.1f} MB/s | tiktoken {t["mb_per_s"]:.1f} MB/s '
      f'({t["tokens_per_s"]/1e6:.2f}M tok/s) | 1-thread ratio {o["mb_per_s_1_thread"]/t["mb_per_s"]:.1f}x')
PY
done
