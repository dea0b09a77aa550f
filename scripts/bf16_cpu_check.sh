#!/usr/bin/env bash
# bf16_cpu_check.sh: --dtype bf16's checks and figures on a CPU with AVX512_BF16 (Zen 4, Zen 5,
# Sapphire Rapids), in one go: the tests whose vdpbf16ps paths only such a CPU runs, the kernels'
# own benchmarks in bf16 and fp32, the four training steps against PyTorch at its best in bf16 (its
# faster of fp32 and bf16 autocast) and in fp32 at full ISA and capped at AVX2, then the whole small
# recipe in bf16; and our bf16 products against oneDNN's bf16 matmul in the step (backends: on a
# CPU with AMX, oneDNN's runs there and is mixed's choice, so this is the measurement to make).
# Usage: [STEPS_ARGS=...] [RECIPE_ARGS=...] scripts/bf16_cpu_check.sh [tests|kernels|steps|backends|recipe|all]
#   (default all; the ARGS go to bench/compare_steps.py and bench/compare_recipe.py)
# Logs: $OUT (default /tmp/bf16_cpu_check), a file a stage; RESULT lines on stdout. Needs the
# release build (built here if missing), Debian's python3-torch and NANOGPT_SRC (a nanoGPT checkout
# or git dir; else .devcarry/nanogpt, cuda_device_check.sh's) for the PyTorch stages. On a CPU
# without AVX512_BF16 it stops: ours would run its emulated path (SCRATCHGPT_BF16_ANY_CPU=1) and
# PyTorch's autocast is emulated too, so no figure would mean anything; BF16_CHECK_ANYWAY=1 runs it
# all the same (to try the script).
set -uo pipefail
cd "$(dirname "$0")/.."
what=${1:-all}
case "$what" in tests | kernels | steps | backends | recipe | all) ;; *)
  echo "bf16_cpu_check.sh: unknown stage '$what': pass tests, kernels, steps, backends, recipe or all" >&2
  exit 2
  ;;
esac
out=${OUT:-/tmp/bf16_cpu_check}
mkdir -p "$out"
if ! grep -qw avx512_bf16 /proc/cpuinfo; then
  if [ "${BF16_CHECK_ANYWAY:-}" != 1 ]; then
    echo "bf16_cpu_check.sh: this CPU has no AVX512_BF16 ($(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2)): nothing here would measure bf16; BF16_CHECK_ANYWAY=1 runs it anyway" >&2
    exit 2
  fi
  export SCRATCHGPT_BF16_ANY_CPU=1
fi
echo "CPU:$(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2); $(grep -o -w 'avx512f\|avx512_bf16\|amx_bf16' /proc/cpuinfo | sort -u | tr '\n' ' ')"
echo "tree $(git rev-parse --short HEAD)$(git diff --quiet || echo ' (modified)'), $(date -u '+%Y-%m-%d %H:%M UTC')"
build=build/release
[ -d "$build" ] || cmake --preset release >/dev/null
cmake --build "$build" -j "$(nproc)" --target scratchgpt cpu_bf16_test cpu_flash_attention_test \
  cpu_matmul_test gpt_fused_attention_test cpu_adamw_test gpt_test matmul_bench attention_bench >"$out/build.log" 2>&1 ||
  { echo "build failed: $out/build.log" >&2; exit 1; }
py=/usr/bin/python3
if [ -z "${NANOGPT_SRC:-}" ]; then  # the PyTorch stages: nanoGPT's model.py
  [ -e .devcarry/nanogpt/model.py ] && export NANOGPT_SRC=.devcarry/nanogpt
fi

if [ "$what" = tests ] || [ "$what" = all ]; then
  # The vdpbf16ps unit (which only such a CPU runs), the fused attention's bf16 rounding at the
  # avx512 level, AdamW packing the weights for it, and the products and model around them.
  for t in cpu_bf16_test cpu_flash_attention_test cpu_matmul_test gpt_fused_attention_test \
    cpu_adamw_test gpt_test; do
    "$build/$t" --gtest_brief=1 >"$out/$t.log" 2>&1
    echo "RESULT $t: rc $?, $(grep -E '^\[  (PASSED|FAILED) ' "$out/$t.log" | tr '\n' ' ')"
  done
fi
if [ "$what" = kernels ] || [ "$what" = all ]; then
  # Our products (not oneDNN's) and both attention kernels at the presets' shapes and GPT-2's
  # T = 1024 (where the fused one runs): about 4 minutes a round on 2 vCPUs.
  for round in 1 2; do  # alternated: the host is shared
    for dtype in fp32 bf16; do
      SCRATCHGPT_DTYPE=$dtype "$build/matmul_bench" --benchmark_filter='^matmul/' \
        >"$out/matmul_${dtype}_$round.log" 2>&1
      SCRATCHGPT_DTYPE=$dtype "$build/attention_bench" \
        --benchmark_filter='^(cpu|flash)/(small|shakespeare|gpt2|gpt2-1024)/' \
        >"$out/attention_${dtype}_$round.log" 2>&1
      echo "RESULT kernels $dtype round $round: $out/matmul_${dtype}_$round.log, $out/attention_${dtype}_$round.log"
    done
  done
fi
if [ "$what" = steps ] || [ "$what" = all ]; then
  # shellcheck disable=SC2086  # STEPS_ARGS: more flags, e.g. "--only S --pairs 1"
  for flags in "--dtype bf16" "" "--isa avx2"; do
    log="$out/steps_$(echo "${flags:-fp32}" | tr -d ' -').log"
    "$py" bench/compare_steps.py $flags ${STEPS_ARGS:-} >"$log" 2>&1
    echo "RESULT steps ${flags:-fp32}: rc $?, $log"
    grep -E '^\|' "$log" || tail -3 "$log"
  done
fi
if [ "$what" = backends ] || [ "$what" = all ]; then
  # The bf16 step on our products and on oneDNN's bf16 matmul (--matmul onednn; AMX where the CPU
  # has it), alternated, three rounds: ms a step (median of the run's steps) and the core-to-core
  # probe (compare runs of one mode). A build without oneDNN has only ours.
  for round in 1 2 3; do
    for preset in shakespeare-char-small gpt2; do
      for m in own onednn; do
        steps=30
        [ "$preset" = gpt2 ] && steps=5
        "$build/scratchgpt" bench --preset "$preset" --dtype bf16 --matmul "$m" --steps "$steps" \
          >"$out/backend_${preset}_${m}_$round.log" 2>&1
        echo "RESULT backend $preset $m round $round: $(grep -E '^ +(step|core to core) ' \
          "$out/backend_${preset}_${m}_$round.log" | tr -s ' ' | tr '\n' ';')"
      done
    done
  done
fi
if [ "$what" = recipe ] || [ "$what" = all ]; then
  # shellcheck disable=SC2086  # RECIPE_ARGS: more flags, e.g. "--max-iters 100"
  "$py" bench/compare_recipe.py --dtype bf16 --rounds 2 ${RECIPE_ARGS:-} >"$out/recipe_bf16.log" 2>&1
  echo "RESULT recipe bf16: rc $?, $out/recipe_bf16.log"
  tail -8 "$out/recipe_bf16.log"
fi
echo "logs: $out"
