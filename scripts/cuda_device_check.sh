#!/usr/bin/env bash
# cuda_device_check.sh: one call on a GPU machine: the CUDA tests, then training speed against
# PyTorch (nanoGPT's model.py) and llm.c's train_gpt2cu, alternated. Built elsewhere and carried:
#   build-cuda/   cmake -B build-cuda -DSCRATCHGPT_CUDA=ON -DSCRATCHGPT_NATIVE=OFF
#                 -DSCRATCHGPT_DNNL=OFF -DSCRATCHGPT_MPI=OFF, then the targets scratchgpt,
#                 cuda_kernels_test, gpt_cuda_test, cuda_train_cli_test
#   .devcarry/    nanogpt/model.py (a nanoGPT checkout's), llmc/train_gpt2cu{,_fp32} (llm.c built
#                 from a checkout, outside the repo), llmc_data/ (`prepare --tokenizer gpt2
#                 --format llmc`)
# Usage: scripts/cuda_device_check.sh [tests|quick|bench|all|sample|profile|compile|bf16] [B...]
# Logs: $OUT or /tmp.
#   tests: the tests only; quick: tests, sampling and the training steps at each B, ours in fp32
#   and bf16 against PyTorch eager (fp32, and bf16 autocast) and llm.c (fp32 and bf16); bench: the
#   same without the tests; all: quick plus torch.compile; sample: the tests, sampling and one
#   training step time of ours; profile: gpt_cuda_test, then per-kernel times (Nsight Compute,
#   two steps at B = 8) of ours in bf16 and fp32 and of llm.c's bf16 trainer, raw CSV in $OUT
#   (bench/ncu_summary.py sums them by kernel; PROFILE_ONLY=ours_bf16: ours in bf16 only);
#   compile: ours (fp32 and bf16) around PyTorch's
#   torch.compile in fp32 and bf16 autocast, no tests; bf16: the tests, then ours in bf16 and
#   fp32 alternated with llm.c's bf16 trainer (no PyTorch: the quick look after a bf16 change).
set -uo pipefail
what=${1:-all}
shift || true
batches=${*:-16}
out=${OUT:-/tmp}
root=$(pwd)
# The test binaries know the tree by the path it was built at.
built_at=$(grep -o 'SCRATCHGPT_SOURCE_DIR=[^ ]*' build-cuda/CMakeFiles/scratchgpt_core.dir/flags.make 2>/dev/null | head -1 | cut -d= -f2 | tr -d '"\\')
built_at=${built_at:-/work/main}
if [ -n "$built_at" ] && [ ! -e "$built_at" ]; then
  mkdir -p "$(dirname "$built_at")" && ln -s "$root" "$built_at"
fi
cublas_dir=$(python3 -c 'import nvidia.cublas, os; print(os.path.join(os.path.dirname(nvidia.cublas.__file__), "lib"))' 2>/dev/null)
export LD_LIBRARY_PATH=/usr/local/cuda/lib64:${cublas_dir}:${LD_LIBRARY_PATH:-}
nvidia-smi --query-gpu=name,driver_version,memory.total,clocks.sm,clocks.max.sm --format=csv
ldd build-cuda/scratchgpt | grep -E "not found|cublas" || true

if [ "$what" = profile ]; then
  timeout 120 build-cuda/gpt_cuda_test --gtest_brief=1 2>&1 | tee "$out/gpt_cuda_test.log" | tail -15
  ncu_bin=$(command -v ncu || ls /opt/nvidia/nsight-compute/*/ncu 2>/dev/null | head -1)
  prof() {  # name command...
    local name=$1
    shift
    timeout 150 "$ncu_bin" --clock-control none --metrics gpu__time_duration.sum --csv \
      --print-units base "$@" > "$out/ncu_$name.csv" 2> "$out/ncu_$name.err"
    echo "ncu $name: rc $?, $(wc -l < "$out/ncu_$name.csv") lines"
  }
  gpt2="--preset gpt2 --vocab-size 50304 --block-size 1024 --seq-len 1024 --batch-size 8"
  if [ "${PROFILE_ONLY:-}" = ours_bf16 ]; then  # the quick look after a bf16 change
    prof ours_bf16 build-cuda/scratchgpt bench $gpt2 --steps 1 --warmup 1 --device cuda --dtype bf16
    python3 bench/ncu_summary.py "$out/ncu_ours_bf16.csv" --top 40
    exit 0
  fi
  prof ours_bf16 build-cuda/scratchgpt bench $gpt2 --steps 1 --warmup 1 --device cuda --dtype bf16
  prof llmc_bf16 .devcarry/llmc/train_gpt2cu -i .devcarry/llmc_data/tiny_shakespeare_train.bin \
    -j .devcarry/llmc_data/tiny_shakespeare_val.bin -e d12 -b 8 -t 1024 -x 2 -m 0 -v 1000 -s 0 \
    -r 0 -l 6e-4
  prof ours_fp32 build-cuda/scratchgpt bench $gpt2 --steps 1 --warmup 1 --device cuda
  for f in ours_bf16 llmc_bf16 ours_fp32; do
    python3 bench/ncu_summary.py "$out/ncu_$f.csv" --top 12 || tail -5 "$out/ncu_$f.err"
  done
  exit 0
fi

if [ "$what" != bench ] && [ "$what" != compile ]; then
  for t in cuda_kernels_test gpt_cuda_test cuda_train_cli_test; do
    echo "== $t"
    timeout 240 build-cuda/$t --gtest_brief=1 2>&1 | tee "$out/$t.log" | tail -25
  done
fi
[ "$what" = tests ] && exit 0

sample_speed() {  # GPT-2 124M, batch 1 through the KV cache
  build-cuda/scratchgpt bench --preset gpt2 --sample "$1" --device cuda --json |
    python3 -c 'import json,sys; j=json.load(sys.stdin); print("RESULT ours sample %s: %d tokens, %.1f tokens/s, %.3f ms/token" % (j["device"], j["new_tokens"], j["tokens_per_s"], j["ms_per_token"]))'
}

ours() {  # B [T [dtype]]
  local T=${2:-1024} dtype=${3:-fp32}
  build-cuda/scratchgpt bench --preset gpt2 --vocab-size 50304 --block-size "$T" --seq-len "$T" \
    --batch-size "$1" --steps 10 --warmup 3 --device cuda --dtype "$dtype" --json |
    tee -a "$out/bench.jsonl" |
    python3 -c 'import json,sys; j=json.load(sys.stdin); print("RESULT ours %s %s B=%d T=%d: %.1f ms/step, %.0f tokens/s, %.1f TFLOP/s (fwd %.1f bwd %.1f opt %.1f) loss %r" % (j["device"], j["dtype"], j["batch_size"], j["seq_len"], j["ms_per_step"], j["tokens_per_s"], j["gflops"]/1e3, j["ms_forward"], j["ms_backward"], j["ms_optimizer"], j["loss"]))'
}
torch_eager() {  # B [dtype]
  python3 bench/cuda_torch_bench.py --nanogpt .devcarry/nanogpt --batch-size "$1" --steps 10 \
    --warmup 3 --dtype "${2:-fp32}" 2>&1 | grep RESULT
}
llmc() {  # binary B
  [ -x ".devcarry/llmc/$1" ] || { echo "no .devcarry/llmc/$1"; return; }
  ".devcarry/llmc/$1" -i .devcarry/llmc_data/tiny_shakespeare_train.bin \
    -j .devcarry/llmc_data/tiny_shakespeare_train.bin -e d12 -b "$2" -t 1024 -x 12 -v 1000 -s 0 \
    -r 0 -l 6e-4 -c 0.1 > "$out/llmc_$1_$2.log" 2>&1
  echo "RESULT llm.c $1 B=$2: $(grep -E '^step +1[0-2]/' "$out/llmc_$1_$2.log" | tail -3 | tr '\n' ' ')"
}
if [ "$what" = compile ]; then
  B=${batches%% *}
  ours "$B"
  ours "$B" 1024 bf16
  timeout 400 python3 bench/cuda_torch_bench.py --nanogpt .devcarry/nanogpt --batch-size "$B" \
    --steps 10 --warmup 3 --compile yes --dtype both 2>&1 | grep RESULT
  ours "$B"
  ours "$B" 1024 bf16
  exit 0
fi

if [ "$what" = bf16 ]; then
  for B in $batches; do
    for round in 1 2; do
      ours "$B" 1024 bf16
      llmc train_gpt2cu "$B"
      ours "$B"
    done
  done
  exit 0
fi
sample_speed 500
if [ "$what" = sample ]; then
  ours "${batches%% *}"
  exit 0
fi
for B in $batches; do
  for round in 1 2; do
    ours "$B"
    ours "$B" 1024 bf16
    torch_eager "$B"
    torch_eager "$B" bf16
    llmc train_gpt2cu_fp32 "$B"
    llmc train_gpt2cu "$B"
  done
done
B=${batches%% *}
if [ "$what" = all ]; then  # torch.compile: a minute or more of compiling first
  ours "$B"
  python3 bench/cuda_torch_bench.py --nanogpt .devcarry/nanogpt --batch-size "$B" --steps 10 \
    --warmup 3 --compile yes 2>&1 | grep RESULT
  ours "$B"
fi
