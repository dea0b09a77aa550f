#!/usr/bin/env bash
# bf16_quality.sh: the quality bars of --dtype bf16 training against fp32, trained here:
#   (a) the small recipe (shakespeare-char-small, 2000 steps, seed 1337, nanoGPT's random stream):
#       best val <= 1.895 in bf16 (fp32: 1.8858);
#   (b) shakespeare-bpe (GPT-2's BPE and shape, 4 layers, C = 128) for STEPS steps: the last val
#       loss in bf16 within 0.5% of fp32's;
#   (c) eval in bf16 within 0.2% of fp32's loss (eval --text on prepare's val text) of (b)'s fp32
#       checkpoint, a GPT-2-shaped model, and of the GPT-2 fixture (tests/fixtures/gpt2/hub:
#       GPT-2's own files, V = 500, random weights, imported as a user imports GPT-2).
# Runs with SCRATCHGPT_BF16_ANY_CPU=1, so on any CPU: without AVX512_BF16 the matrix products run
# gemm_bf16's AVX2 path, vdpbf16ps's sums with two FMAs a pair: bf16's numbers, not its speed. Exits 1 if a bar is missed. Not part of
# ctest (minutes of training); train_bf16_test and cpu_bf16_test check the path in seconds.
# Usage: bench/bf16_quality.sh [STEPS] [THREADS]
#   SCRATCHGPT (default build/release/scratchgpt), WORK (default /tmp/bf16_quality): files
set -euo pipefail
cd "$(dirname "$0")/.."
steps=${1:-300}
threads=${2:-2}
sg=${SCRATCHGPT:-build/release/scratchgpt}
work=${WORK:-/tmp/bf16_quality}
if [ ! -x "$sg" ]; then
  echo "error: $sg not found: build it first (cmake --build build/release)" >&2
  exit 2
fi
export SCRATCHGPT_BF16_ANY_CPU=1
mkdir -p "$work"
text=data/tinyshakespeare.txt
[ -d "$work/char" ] || "$sg" prepare --input "$text" --out-dir "$work/char" >/dev/null
[ -d "$work/bpe_data" ] ||
  "$sg" prepare --tokenizer gpt2 --input "$text" --out-dir "$work/bpe_data" >/dev/null
n=$(wc -c <"$text")
tail -c +$((n * 9 / 10 + 1)) "$text" >"$work/unseen.txt"

# The best and the last val loss of a run's metrics.jsonl, to 9 figures.
val_losses() {
  grep '"type": "eval"' "$1/metrics.jsonl" |
    sed 's/.*"val_loss": \([^,]*\),.*/\1/' |
    awk 'NR == 1 || $1 < best { best = $1 } { last = $1 } END { printf "%s %s", best, last }'
}

failed=0
for dtype in fp32 bf16; do
  out=$work/small_$dtype
  if [ ! -f "$out/last.safetensors" ]; then
    echo "training the small recipe in $dtype ($out) ..."
    "$sg" train --preset shakespeare-char-small --dtype "$dtype" --data-dir "$work/char" \
      --out-dir "$out" --threads "$threads" --overwrite >"$out.log" 2>&1
    tail -1 "$out.log"
  fi
  out=$work/bpe_$dtype
  if [ ! -f "$out/last.safetensors" ]; then
    echo "training shakespeare-bpe for $steps steps in $dtype ($out) ..."
    "$sg" train --preset shakespeare-bpe --dtype "$dtype" --max-iters "$steps" \
      --lr-decay-iters "$steps" --warmup-iters $((steps / 3 < 100 ? steps / 3 : 100)) \
      --eval-interval "$steps" --data-dir "$work/bpe_data" --out-dir "$out" \
      --threads "$threads" --overwrite >"$out.log" 2>&1
    tail -1 "$out.log"
  fi
done

read -r best32 _ <<<"$(val_losses "$work/small_fp32")"
read -r best16 _ <<<"$(val_losses "$work/small_bf16")"
awk -v f="$best32" -v b="$best16" 'BEGIN {
  ok = b <= 1.895
  printf "small recipe, best val:        fp32 %.4f  bf16 %.4f (%+.2f%%)  bar <= 1.895: %s\n", f, b,
         100 * (b / f - 1), ok ? "met" : "MISSED"
  exit ok ? 0 : 1 }' || failed=1

read -r _ last32 <<<"$(val_losses "$work/bpe_fp32")"
read -r _ last16 <<<"$(val_losses "$work/bpe_bf16")"
awk -v f="$last32" -v b="$last16" -v s="$steps" 'BEGIN {
  r = b / f - 1; ok = r <= 0.005 && r >= -0.005
  printf "shakespeare-bpe %d steps, val:  fp32 %.4f  bf16 %.4f (%+.3f%%)  bar 0.5%%: %s\n", s, f, b,
         100 * r, ok ? "met" : "MISSED"
  exit ok ? 0 : 1 }' || failed=1

# eval's loss to five figures from its perplexity ("text loss 5.6646 (perplexity 288.49) ...").
eval_loss() {  # checkpoint dtype extra-flags
  # shellcheck disable=SC2086  # $3: several flags
  "$sg" eval --checkpoint "$1" --text "$work/unseen.txt" --threads "$threads" --dtype "$2" $3 |
    awk '{sub(/\)/, "", $5); printf "%.5f", log($5)}'
}
hub=$work/gpt2_fixture.safetensors
[ -f "$hub" ] || "$sg" import --format hf --input tests/fixtures/gpt2/hub --out "$hub" \
  --tokenizer tests/fixtures/gpt2/tok500 >/dev/null
measure() {  # name checkpoint extra-flags
  local f b
  f=$(eval_loss "$2" fp32 "$3")
  b=$(eval_loss "$2" bf16 "$3")
  awk -v name="$1" -v f="$f" -v b="$b" 'BEGIN {
    r = b / f - 1; ok = r <= 0.002 && r >= -0.002
    printf "eval, %-25s fp32 %.5f  bf16 %.5f (%+.3f%%)  bar 0.2%%: %s\n", name, f, b, 100 * r,
           ok ? "met" : "MISSED"
    exit ok ? 0 : 1 }' || failed=1
}
measure "shakespeare-bpe (fp32 run)" "$work/bpe_fp32/last.safetensors" ""
measure "GPT-2 fixture (random)" "$hub" "--block-size 16"
exit "$failed"
