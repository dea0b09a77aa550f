#!/usr/bin/env bash
# mpi_scaling.sh: data-parallel training on this machine, alternating (the machines are shared and
# noisy) one process with all cores as threads against one process per core under mpirun, with
# the same global batch (--grad-accum 2: one micro-step per process under mpirun). Prints tokens/s
# of each and the all-reduce time per step and its share of the step, as 'train' reports them.
# Usage: bench/mpi_scaling.sh [BUILD_DIR] [PRESET] [ITERS] [REPEATS]
set -euo pipefail
cd "$(dirname "$0")/.."
build=${1:-build/ci}
preset=${2:-shakespeare-char-small}
iters=${3:-100}
repeats=${4:-3}
sg="$build/scratchgpt"
cores=$(nproc)
data=$(mktemp -d)
trap 'rm -rf "$data"' EXIT
"$sg" prepare --out-dir "$data/data" >/dev/null
args=(train --preset "$preset" --data-dir "$data/data" --rng-stream split --grad-accum "$cores"
      --max-iters "$iters" --eval-interval 100000 --eval-iters 1)
rate() { sed -n 's/.* \([0-9.]*k\{0,1\}\) tok\/s; checkpoints.*/\1/p' "$1"; }
echo "preset $preset, $iters steps, global batch = $cores micro-batches, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2)"
for r in $(seq "$repeats"); do
  rm -rf "$data/a" "$data/b"
  "$sg" "${args[@]}" --threads "$cores" --out-dir "$data/a" 2>"$data/a.log"
  mpirun --allow-run-as-root --oversubscribe -np "$cores" "$sg" "${args[@]}" --threads 1 \
    --out-dir "$data/b" 2>"$data/b.log"
  echo "run $r: 1 process x $cores threads: $(rate "$data/a.log") tok/s | $cores processes x 1 thread: $(rate "$data/b.log") tok/s; $(grep -o 'all-reduce: .*' "$data/b.log")"
done
