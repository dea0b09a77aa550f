// bench_main.h: the main() every Google Benchmark executable here shares. SCRATCHGPT_THREADS=n
// sets the pool size (default: all cores); pair it with the libraries' own thread variables
// (OPENBLAS_NUM_THREADS, OMP_NUM_THREADS for oneDNN) when a bench compares against them.
// The rows that call cpu:: kernels measure our own matmul unless SCRATCHGPT_MATMUL=onednn (or
// auto) picks another backend (matmul_backend.h).
#pragma once

#include <benchmark/benchmark.h>

#include <cstdlib>

#include "core/thread_pool.h"
#include "kernels/cpu/matmul_backend.h"

namespace scratchgpt::bench {

inline int run_benchmarks(int argc, char** argv) {
  if (const char* t = std::getenv("SCRATCHGPT_THREADS"))
    ThreadPool::set_global_threads(std::atoi(t));
  const char* m = std::getenv("SCRATCHGPT_MATMUL");
  cpu::set_matmul_backend(m ? cpu::parse_matmul_backend(m) : cpu::MatmulBackend::kOwn);
  benchmark::Initialize(&argc, argv);
  if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 1;
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}

}  // namespace scratchgpt::bench
