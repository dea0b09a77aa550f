#!/usr/bin/env bash
# fuzz.sh: builds the libFuzzer harnesses (preset `fuzz`: clang, ASan + UBSan) and runs each one
# for SECONDS from its committed seed corpus (fuzz/corpus/NAME), new inputs going to a scratch
# copy. Exits non-zero on a crash, sanitizer report, leak or timeout (once its round ends); the
# input that caused it is left in build/fuzz/crash-* (reproduce: build/fuzz/NAME_fuzz
# build/fuzz/crash-...).
# Usage: scripts/fuzz.sh [SECONDS] [NAME ...]   (default: 30 seconds each, every harness)
#   CI runs 6 seconds each (from its sanitizer build); for a long hunt: scripts/fuzz.sh 3600 checkpoint
# The harnesses run one per core at a time (SCRATCHGPT_FUZZ_JOBS=1: one after another).
# SCRATCHGPT_FUZZ_PRESET=ci-sanitize (CI) runs the harnesses its sanitizer build made (build/ci-sanitize).
set -euo pipefail
cd "$(dirname "$0")/.."
seconds=${1:-30}
shift || true
names=("$@")
if ((${#names[@]} == 0)); then
  for f in fuzz/*_fuzz.cpp; do n=$(basename "$f" _fuzz.cpp); names+=("$n"); done
fi
preset=${SCRATCHGPT_FUZZ_PRESET:-fuzz}
dir=build/$preset
cmake --preset "$preset" >/dev/null
cmake --build --preset "$preset" -j "$(nproc)" --target "${names[@]/%/_fuzz}"
# One harness per core at a time (each is single-threaded): every one still runs SECONDS on a core
# of its own. Their summaries are printed in order once a round is done.
jobs=${SCRATCHGPT_FUZZ_JOBS:-$(nproc)}
run_one() {
  local n=$1 max_len=4096
  [[ $n == checkpoint || $n == safetensors || $n == pickle || $n == zip ]] && max_len=65536
  mkdir -p "$dir/corpus-$n"
  (cd "$dir" && "./${n}_fuzz" -max_total_time="$seconds" -rss_limit_mb=2048 -timeout=10 \
      -max_len="$max_len" -print_final_stats=1 "corpus-$n" "../../fuzz/corpus/$n" >"log-$n.txt" 2>&1 || true)
}
for ((i = 0; i < ${#names[@]}; i += jobs)); do
  round=("${names[@]:i:jobs}")
  for n in "${round[@]}"; do run_one "$n" & done
  wait
  for n in "${round[@]}"; do
    echo "== fuzz $n: ${seconds}s from fuzz/corpus/$n =="
    grep -E '^(#[0-9]+ +DONE|stat::number_of_executed_units|==[0-9]+==|SUMMARY|Done)' "$dir/log-$n.txt" || true
  done
  # libFuzzer's exit code is not kept above: a crash leaves crash-/leak-/timeout-/oom- files.
  if compgen -G "$dir/crash-*" >/dev/null || compgen -G "$dir/leak-*" >/dev/null ||
     compgen -G "$dir/timeout-*" >/dev/null || compgen -G "$dir/oom-*" >/dev/null; then
    echo "fuzz ${round[*]}: FAILED, inputs in $dir (logs: $dir/log-NAME.txt):" &&
      ls "$dir"/{crash,leak,timeout,oom}-* 2>/dev/null
    exit 1
  fi
done
echo "fuzz: ${#names[@]} harnesses ran ${seconds}s each without a finding"
