#!/usr/bin/env bash
# mpi_overlap.sh: the all-reduce overlapped with backward against the one after it, under
# `mpirun -np 2` with 1 thread each, alternating on and off (the machines are shared and noisy).
# Two models: shakespeare-char-small with its own micro-batch, and shakespeare-char's model with a
# small micro-batch (B=4 T=64: little compute per byte of gradient); and off again with OpenMPI's
# mpi_yield_when_idle (its blocking calls yield the core while they wait, as the overlap's
# communication thread sleeps), to tell the two effects apart. Prints tokens/s and the
# all-reduce lines 'train' reports (off: time after a barrier, and the wait for the slower process;
# on: the time after backward, that wait included, and the communication thread's busy time).
# Usage: bench/mpi_overlap.sh [BUILD_DIR] [REPEATS] [SMALL_ITERS] [CHAR_ITERS]
set -euo pipefail
cd "$(dirname "$0")/.."
build=${1:-build/ci}
repeats=${2:-4}
small_iters=${3:-200}
char_iters=${4:-10}
sg="$build/scratchgpt"
data=$(mktemp -d)
trap 'rm -rf "$data"' EXIT
"$sg" prepare --out-dir "$data/data" >/dev/null
rate() { sed -n 's/.* \([0-9.]*k\{0,1\}\) tok\/s; checkpoints.*/\1/p' "$1"; }
run() {  # name, mode (on, off, or off-yield: off with OpenMPI yielding while it waits), flags...
  local name=$1 mode=$2 overlap=$2 mca=()
  shift 2
  [ "$mode" = off-yield ] && overlap=off && mca=(--mca mpi_yield_when_idle 1)
  rm -rf "$data/out"
  mpirun --allow-run-as-root --oversubscribe "${mca[@]}" -np 2 "$sg" train --data-dir "$data/data" \
    --out-dir "$data/out" --rng-stream split --grad-accum 2 --threads 1 --eval-interval 100000 \
    --eval-iters 1 --overlap-allreduce "$overlap" "$@" 2>"$data/log"
  echo "$name $mode: $(rate "$data/log") tok/s; $(grep -o 'all-reduce: .*' "$data/log")"
}
echo "$(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2), load $(cut -d' ' -f1-3 /proc/loadavg)"
modes=(on off off-yield)
for r in $(seq "$repeats"); do
  for i in 0 1 2; do  # the order rotates each repeat
    run "small run $r" "${modes[$(((i + r) % 3))]}" --preset shakespeare-char-small \
      --max-iters "$small_iters"
  done
  for i in 0 1 2; do
    run "char B=4 T=64 run $r" "${modes[$(((i + r) % 3))]}" --preset shakespeare-char \
      --batch-size 4 --block-size 64 --max-iters "$char_iters"
  done
done
echo "load after: $(cut -d' ' -f1-3 /proc/loadavg)"
