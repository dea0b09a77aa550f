// bench_main.h: the main() every Google Benchmark executable here shares. SCRATCHGPT_THREADS=n
// sets the pool size (default: all cores); pair it with the libraries' own thread variables
// (OPENBLAS_NUM_THREADS, OMP_NUM_THREADS for oneDNN) when a bench compares against them.
// The rows that call cpu:: kernels measure our own matmul unless SCRATCHGPT_MATMUL=onednn (or
// auto) picks another backend (matmul_backend.h). The context is built as a command's is
// (run/exec.h): with oneDNN, the pool's heaps are warmed as in training. SCRATCHGPT_DTYPE=bf16
// times the products of --dtype bf16 (as train would, so on a CPU without AVX512_BF16 only with
// SCRATCHGPT_BF16_ANY_CPU=1); the library rows compare against fp32 and stop, so pick the
// cpu:: rows with --benchmark_filter then.
#pragma once

#include <benchmark/benchmark.h>

#include <cstdio>
#include <cstdlib>
#include <exception>

#include "core/enum_names.h"
#include "core/exec_context.h"
#include "kernels/cpu/matmul_backend.h"
#include "run/exec.h"

namespace scratchgpt::bench {

// The context the rows call the kernels with: SCRATCHGPT_THREADS workers, SCRATCHGPT_MATMUL's
// backend (our own by default), the best SIMD level (SCRATCHGPT_SIMD lowers it), SCRATCHGPT_DTYPE's
// precision of the products (fp32 by default).
inline const ExecContext& ctx() {
  static const Exec exec = [] {
    const char* t = std::getenv("SCRATCHGPT_THREADS");
    const char* m = std::getenv("SCRATCHGPT_MATMUL");
    const char* d = std::getenv("SCRATCHGPT_DTYPE");
    return make_exec(t ? std::atoi(t) : 0,
                     m ? cpu::parse_matmul_backend(m) : cpu::MatmulBackend::kOwn, "", "",
                     d ? enum_from_name<Dtype>(kDtypeNames, d, "SCRATCHGPT_DTYPE") : Dtype::kFp32);
  }();
  return exec.ctx;
}

inline int run_benchmarks(int argc, char** argv) {
  try {
    ctx();  // the pool, the backend and the dtype, checked before the first row
  } catch (const std::exception& e) {
    std::fprintf(stderr, "error: %s\n", e.what());
    return 1;
  }
  benchmark::Initialize(&argc, argv);
  if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 1;
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}

}  // namespace scratchgpt::bench
