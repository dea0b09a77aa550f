#!/usr/bin/env bash
# fuzz.sh: builds the libFuzzer harnesses (preset `fuzz`: clang, ASan + UBSan) and runs each one
# for SECONDS from its committed seed corpus (fuzz/corpus/NAME), new inputs going to a scratch
# copy. Exits non-zero on the first crash, sanitizer report, leak or timeout; the input that
# caused it is left in build/fuzz/crash-* (reproduce: build/fuzz/NAME_fuzz build/fuzz/crash-...).
# Usage: scripts/fuzz.sh [SECONDS] [NAME ...]   (default: 30 seconds each, every harness)
#   CI runs 10 seconds each; for a long hunt: scripts/fuzz.sh 3600 checkpoint
set -euo pipefail
cd "$(dirname "$0")/.."
seconds=${1:-30}
shift || true
names=("$@")
if ((${#names[@]} == 0)); then
  for f in fuzz/*_fuzz.cpp; do n=$(basename "$f" _fuzz.cpp); names+=("$n"); done
fi
cmake --preset fuzz >/dev/null
cmake --build --preset fuzz -j "$(nproc)" --target "${names[@]/%/_fuzz}"
for n in "${names[@]}"; do
  work=build/fuzz/corpus-$n
  mkdir -p "$work"
  echo "== fuzz $n: ${seconds}s from fuzz/corpus/$n =="
  (cd build/fuzz && "./${n}_fuzz" -max_total_time="$seconds" -rss_limit_mb=2048 -timeout=10 \
      -max_len="$([[ $n == checkpoint || $n == safetensors || $n == pickle || $n == zip ]] && echo 65536 || echo 4096)" -print_final_stats=1 "corpus-$n" "../../fuzz/corpus/$n" 2>&1 |
    grep -E '^(#[0-9]+ +DONE|stat::number_of_executed_units|==[0-9]+==|SUMMARY|Done)' || true)
  # libFuzzer's exit code is lost in the pipe above: a crash leaves crash-/leak-/timeout- files.
  if compgen -G "build/fuzz/crash-*" >/dev/null || compgen -G "build/fuzz/leak-*" >/dev/null ||
     compgen -G "build/fuzz/timeout-*" >/dev/null || compgen -G "build/fuzz/oom-*" >/dev/null; then
    echo "fuzz $n: FAILED, inputs in build/fuzz:" && ls build/fuzz/{crash,leak,timeout,oom}-* 2>/dev/null
    exit 1
  fi
done
echo "fuzz: ${#names[@]} harnesses ran ${seconds}s each without a finding"
