#!/usr/bin/env bash
# quant_quality.sh: issue 43's quality bar for --weights bf16 and int8 on GPT-2-shaped models:
# 'eval --text' loss at fp32, bf16 and int8 on text the model was not trained on, and the ratios
# against the bars (bf16 within 0.2% of fp32, int8 within 1%). Two models:
#   (a) shakespeare-bpe (GPT-2's BPE, V = 50257, tied lm_head, GELU, LayerNorm; 4 layers, C = 128)
#       trained here STEPS steps on prepare's train split of Tiny Shakespeare; the held-out text
#       is the text of its val split (the last 10%, which eval_text_test proves is that split);
#   (b) the GPT-2 fixture (tests/fixtures/gpt2/hub: GPT-2's files, V = 500, random weights)
#       imported, on the same text: random weights, so its loss says little about quality.
# Exits 1 if a bar is missed. Not part of ctest (minutes of training); quant_eval_test and
# gpt2_fixture_quant_test check smaller models in seconds.
# Usage: bench/quant_quality.sh [STEPS] [THREADS]
#   SCRATCHGPT (default build/release/scratchgpt), WORK (default /tmp/quant_quality): files
#   CKPT: a shakespeare-bpe checkpoint to evaluate instead of training one
set -euo pipefail
cd "$(dirname "$0")/.."
steps=${1:-300}
threads=${2:-2}
sg=${SCRATCHGPT:-build/release/scratchgpt}
work=${WORK:-/tmp/quant_quality}
if [ ! -x "$sg" ]; then
  echo "error: $sg not found: build it first (cmake --build build/release)" >&2
  exit 2
fi
mkdir -p "$work"

text=data/tinyshakespeare.txt
[ -d "$work/data" ] ||
  "$sg" prepare --tokenizer gpt2 --input "$text" --out-dir "$work/data" >/dev/null
# prepare's val split: the text from floor(0.9 * its length) on (ASCII: characters are bytes).
n=$(wc -c <"$text")
tail -c +$((n * 9 / 10 + 1)) "$text" >"$work/unseen.txt"

ck=${CKPT:-$work/bpe/last.safetensors}
if [ ! -f "$ck" ]; then
  echo "training shakespeare-bpe for $steps steps ($work/bpe) ..."
  # The preset's schedule cut to STEPS: warmup 100 steps (a third of the run when shorter).
  "$sg" train --preset shakespeare-bpe --max-iters "$steps" --lr-decay-iters "$steps" \
    --warmup-iters $((steps / 3 < 100 ? steps / 3 : 100)) --eval-interval "$steps" --data-dir "$work/data" --out-dir "$work/bpe" --threads "$threads" \
    >"$work/train.log" 2>&1
  tail -1 "$work/train.log"
fi
hub=$work/gpt2_fixture.safetensors
[ -f "$hub" ] || "$sg" import --format hf --input tests/fixtures/gpt2/hub --out "$hub" \
  --tokenizer tests/fixtures/gpt2/tok500 >/dev/null

failed=0
# One model: its loss at each precision, to five figures from the perplexity ("text loss 5.6646
# (perplexity 288.49) over ...": the loss printed has four decimals), and the ratios against the
# bars.
measure() {  # name checkpoint extra-eval-flags
  local loss=()
  for w in fp32 bf16 int8; do
    # shellcheck disable=SC2086  # $3: several flags
    loss+=("$("$sg" eval --checkpoint "$2" --text "$work/unseen.txt" --weights "$w" \
      --threads "$threads" $3 | awk '{sub(/\)/, "", $5); printf "%.5f", log($5)}')")
  done
  awk -v name="$1" -v f="${loss[0]}" -v b="${loss[1]}" -v i="${loss[2]}" 'BEGIN {
    rb = b / f - 1; ri = i / f - 1
    ok = (rb <= 0.002 && rb >= -0.002 && ri <= 0.01 && ri >= -0.01)
    printf "%-34s fp32 %s  bf16 %s (%+.3f%%)  int8 %s (%+.3f%%)  %s\n", name, f, b, 100 * rb, i,
           100 * ri, ok ? "within the bars" : "MISSES A BAR"
    exit ok ? 0 : 1 }' || failed=1
}
echo "eval --text $work/unseen.txt ($(wc -c <"$work/unseen.txt") characters, never trained on):"
measure "shakespeare-bpe ($ck)" "$ck" ""
measure "GPT-2 fixture (random weights)" "$hub" "--block-size 16"
exit "$failed"
