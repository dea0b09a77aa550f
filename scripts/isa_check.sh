#!/usr/bin/env bash
# isa_check.sh: compiles the library and the CLI, warnings as errors, for each instruction set the
# kernels have a path for, so that a build that is green on this CPU cannot be red on another:
# baseline x86-64 (the scalar path), AVX2 + FMA without AVX-512, and AVX-512 where this CPU lacks
# it (where it has it, the -march=native build of the ci preset has compiled those units already).
# Usage: scripts/isa_check.sh [preset ...]   (default: isa-x86-64 isa-avx2 [isa-avx512])
set -euo pipefail
cd "$(dirname "$0")/.."
presets=("$@")
if ((${#presets[@]} == 0)); then
  presets=(isa-x86-64 isa-avx2)
  grep -qw avx512f /proc/cpuinfo || presets+=(isa-avx512)
fi
for p in "${presets[@]}"; do
  echo "== compile check: $p =="
  cmake --preset "$p" >/dev/null
  cmake --build --preset "$p" -j "$(nproc)"
done
