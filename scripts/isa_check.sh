#!/usr/bin/env bash
# isa_check.sh: compiles the library and the CLI, warnings as errors, for the instruction sets this
# machine's own builds in CI do not already cover, so that a tree green on this CPU cannot be red
# on another. CI compiles: -march=native (preset ci), AVX2 without AVX-512 (-march=haswell, preset
# ci-sanitize), baseline x86-64 (preset tsan); this script adds AVX-512 (-march=skylake-avx512)
# where the CPU lacks it. Given presets, it compiles those instead (isa-x86-64, isa-avx2,
# isa-avx512).
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
