// bench.h: what 'scratchgpt bench' does: time GPT training steps (forward, backward, optimizer) on
// random tokens for a preset or an explicit shape, and report ms/step, tokens/s, achieved GFLOP/s
// (nanoGPT's 6N + 12 L NH HS T per token), the fraction of a peak measured here with an FMA loop
// on every thread (core/perf_probes.h), and peak RSS. With sample > 0 it instead times generating
// that many tokens at batch 1 through the KV cache (generate() and the sampler, as 'scratchgpt
// sample' runs them), and with prompt_tokens > 0 prefilling a prompt of that length apart from it
// (prompt tokens/s). json prints one JSON object (bench/compare_pytorch.py reads it).
// With tokenizer set it times encoding text instead (MB/s, tokens/s).
// Leaves out: data loading and evaluation (see 'train').
#pragma once

#include <string>
#include <vector>

#include "core/exec_context.h"

namespace scratchgpt {

struct BenchRequest {
  std::string preset = "shakespeare-char-small";
  int n_layer = 0, n_head = 0, n_embd = 0, block_size = 0, vocab_size = 0;
  int seq_len = 0, batch_size = 0, steps = 10, warmup = 2, threads = 0;
  float dropout = -1.0f;
  int sample = 0;  // > 0: time generating this many tokens instead of training
  // With sample: also time prefilling a prompt of this many tokens (0: not timed), llama-bench's pp.
  int prompt_tokens = 0;
  MatmulBackend matmul = MatmulBackend::kAuto;
  std::string simd;  // "": the default level; avx512, avx2 or scalar (capped at the CPU's)
  std::string device;  // "" or cpu, or cuda (run/exec.h)
  std::string weights;  // --weights: "" (fp32), fp32, bf16 or int8 for the matrix products
  Dtype dtype = Dtype::kFp32;  // --dtype: the products' inputs rounded to bf16 (run/exec.h)
  bool json = false;
  // Non-empty: time the tokenizer instead ("gpt2" or a directory): encoding `input` (default: the
  // bundled Tiny Shakespeare) repeated `repeat` times, on 1 thread and on `threads`.
  std::string tokenizer;
  std::string input;
  int repeat = 10;
};

// Prints the report to stdout.
void run_bench(const BenchRequest& request);

// The presets it times: train's GPT presets (preset_names(), GPT-2's four shapes included; those
// are timed at T=64 and B=4 unless --seq-len and --batch-size say otherwise).
std::vector<std::string> bench_preset_names();

}  // namespace scratchgpt
