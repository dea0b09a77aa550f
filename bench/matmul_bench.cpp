// matmul_bench.cpp: GFLOP/s of cpu::matmul_forward and of the two backward products (dinp,
// dweight) at the shapes of the three target models; with -DSCRATCHGPT_BLAS=ON the same
// products through OpenBLAS's cblas_sgemm, for comparison. Wall time (the kernels are threaded).
//   build-*/matmul_bench --benchmark_filter=small   (or shakespeare / gpt2)
//   SCRATCHGPT_THREADS=1 OPENBLAS_NUM_THREADS=1 build-*/matmul_bench   (one core each)
#include <benchmark/benchmark.h>

#include <cstdlib>
#include <random>
#include <string>
#include <vector>

#include "core/thread_pool.h"
#include "kernels/cpu/matmul.h"
#include "kernels/cpu/simd.h"

#ifdef SCRATCHGPT_HAVE_BLAS
#include <cblas.h>
#endif

namespace {

using namespace scratchgpt;

enum Op { kForward = 0, kDinp = 1, kDweight = 2 };

struct Data {
  std::vector<float> inp, w, bias, out, dout, dinp, dw;
  Data(int N, int C, int OC)
      : inp(size_t(N) * C), w(size_t(OC) * C), bias(OC), out(size_t(N) * OC),
        dout(size_t(N) * OC), dinp(size_t(N) * C), dw(size_t(OC) * C) {
    std::mt19937 gen(1);
    std::uniform_real_distribution<float> d(-1.0f, 1.0f);
    for (auto* v : {&inp, &w, &bias, &dout})
      for (float& x : *v) x = d(gen);
  }
};

void set_counters(benchmark::State& state, int N, int C, int OC) {
  state.counters["GFLOP/s"] =
      benchmark::Counter(2.0 * N * C * OC * 1e-9, benchmark::Counter::kIsIterationInvariantRate);
}

void BM_matmul(benchmark::State& state) {
  const int N = state.range(0), C = state.range(1), OC = state.range(2);
  const int op = state.range(3);
  Data d(N, C, OC);
  for (auto _ : state) {
    if (op == kForward)
      cpu::matmul_forward(d.out.data(), d.inp.data(), d.w.data(), d.bias.data(), N, C, OC);
    else if (op == kDinp)
      cpu::matmul_backward(d.dinp.data(), nullptr, nullptr, d.dout.data(), d.inp.data(),
                           d.w.data(), N, C, OC);
    else
      cpu::matmul_backward(nullptr, d.dw.data(), nullptr, d.dout.data(), d.inp.data(),
                           d.w.data(), N, C, OC);
    benchmark::ClobberMemory();
  }
  set_counters(state, N, C, OC);
  state.SetLabel(simd_level_name(cpu::simd_level()));
}

#ifdef SCRATCHGPT_HAVE_BLAS
void BM_blas(benchmark::State& state) {
  const int N = state.range(0), C = state.range(1), OC = state.range(2);
  const int op = state.range(3);
  Data d(N, C, OC);
  for (auto _ : state) {
    if (op == kForward)  // out (N, OC) = inp (N, C) W^T  (bias left out: a rank-1 update)
      cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasTrans, N, OC, C, 1.0f, d.inp.data(), C,
                  d.w.data(), C, 0.0f, d.out.data(), OC);
    else if (op == kDinp)  // dinp (N, C) += dout (N, OC) W (OC, C)
      cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, N, C, OC, 1.0f, d.dout.data(), OC,
                  d.w.data(), C, 1.0f, d.dinp.data(), C);
    else  // dW (OC, C) += dout^T inp
      cblas_sgemm(CblasRowMajor, CblasTrans, CblasNoTrans, OC, C, N, 1.0f, d.dout.data(), OC,
                  d.inp.data(), C, 1.0f, d.dw.data(), C);
    benchmark::ClobberMemory();
  }
  set_counters(state, N, C, OC);
}
#endif

struct Shape {
  const char* model;
  int N, C, OC;
};

// N = B*T. Per block: qkv (C -> 3C), attention projection (C -> C), MLP up (C -> 4C) and down
// (4C -> C); then the lm_head (C -> V).
const Shape kShapes[] = {
    {"small", 768, 128, 384},      {"small", 768, 128, 128},      {"small", 768, 128, 512},
    {"small", 768, 512, 128},      {"small", 768, 128, 65},       {"shakespeare", 16384, 384, 1152},
    {"shakespeare", 16384, 384, 384}, {"shakespeare", 16384, 384, 1536},
    {"shakespeare", 16384, 1536, 384}, {"shakespeare", 16384, 384, 65},
    {"gpt2", 256, 768, 2304},      {"gpt2", 256, 768, 768},       {"gpt2", 256, 768, 3072},
    {"gpt2", 256, 3072, 768},      {"gpt2", 256, 768, 50257},
};

int register_all() {
  const char* ops[] = {"forward", "dinp", "dweight"};
  for (const Shape& s : kShapes)
    for (int op = 0; op < 3; ++op) {
      const std::string suffix = std::string(s.model) + "/" + ops[op];
      benchmark::RegisterBenchmark(("matmul/" + suffix).c_str(), BM_matmul)
          ->Args({s.N, s.C, s.OC, op})
          ->ArgNames({"N", "C", "OC", "op"})
          ->UseRealTime()
          ->Unit(benchmark::kMillisecond);
#ifdef SCRATCHGPT_HAVE_BLAS
      benchmark::RegisterBenchmark(("openblas/" + suffix).c_str(), BM_blas)
          ->Args({s.N, s.C, s.OC, op})
          ->ArgNames({"N", "C", "OC", "op"})
          ->UseRealTime()
          ->Unit(benchmark::kMillisecond);
#endif
    }
  return 0;
}
const int kRegistered = register_all();

}  // namespace

// SCRATCHGPT_THREADS=n sets the pool size (default: all cores); pair it with OPENBLAS_NUM_THREADS.
int main(int argc, char** argv) {
  if (const char* t = std::getenv("SCRATCHGPT_THREADS"))
    scratchgpt::ThreadPool::set_global_threads(std::atoi(t));
  benchmark::Initialize(&argc, argv);
  if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 1;
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}
