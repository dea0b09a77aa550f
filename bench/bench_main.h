// bench_main.h: the main() every Google Benchmark executable here shares. SCRATCHGPT_THREADS=n
// sets the pool size (default: all cores); pair it with the libraries' own thread variables
// (OPENBLAS_NUM_THREADS, OMP_NUM_THREADS for oneDNN) when a bench compares against them.
// The rows that call cpu:: kernels measure our own matmul unless SCRATCHGPT_MATMUL=onednn (or
// auto) picks another backend (matmul_backend.h). The context is built as a command's is
// (run/exec.h): with oneDNN, the pool's heaps are warmed as in training.
#pragma once

#include <benchmark/benchmark.h>

#include <cstdlib>

#include "core/exec_context.h"
#include "kernels/cpu/matmul_backend.h"
#include "run/exec.h"

namespace scratchgpt::bench {

// The context the rows call the kernels with: SCRATCHGPT_THREADS workers, SCRATCHGPT_MATMUL's
// backend (our own by default), the best SIMD level (SCRATCHGPT_SIMD lowers it).
inline const ExecContext& ctx() {
  static const Exec exec = [] {
    const char* t = std::getenv("SCRATCHGPT_THREADS");
    const char* m = std::getenv("SCRATCHGPT_MATMUL");
    return make_exec(t ? std::atoi(t) : 0,
                     m ? cpu::parse_matmul_backend(m) : cpu::MatmulBackend::kOwn);
  }();
  return exec.ctx;
}

inline int run_benchmarks(int argc, char** argv) {
  ctx();  // the pool and the backend, checked before the first row
  benchmark::Initialize(&argc, argv);
  if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 1;
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}

}  // namespace scratchgpt::bench
