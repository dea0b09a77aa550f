#!/usr/bin/env bash
# isa_check.sh: compiles the library, warnings as errors, for the instruction sets this machine's
# own builds do not already cover, so that a tree green on this CPU cannot be red on another (run
# locally; CI leaves it out for time: docs/testing.md, "CI"). CI compiles the library at
# -march=native (preset ci), AVX2 without AVX-512 (-march=haswell, preset ci-sanitize) and
# baseline x86-64 (preset tsan); this script adds
# AVX-512 (-march=skylake-avx512) where the CPU lacks it. Given presets, it compiles those instead
# (isa-x86-64, isa-avx2, isa-avx512). The CLI (apps/) has no code that depends on the instruction
# set; CI compiles it at -march=native and -march=haswell.
# Usage: scripts/isa_check.sh [preset ...]
set -euo pipefail
cd "$(dirname "$0")/.."
presets=("$@")
if ((${#presets[@]} == 0)); then
  if grep -qw avx512f /proc/cpuinfo; then
    echo "== compile check: AVX-512 is covered by this CPU's -march=native build =="
  else
    presets+=(isa-avx512)
  fi
fi
for p in "${presets[@]}"; do
  echo "== compile check: $p =="
  cmake --preset "$p" >/dev/null
  cmake --build --preset "$p" -j "$(nproc)"
done
