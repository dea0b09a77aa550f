// matmul_bench.cpp: GFLOP/s of cpu::matmul_forward and of the two backward products (dinp,
// dweight) at the shapes of the three target models, next to the same products through optional
// libraries: -DSCRATCHGPT_BLAS=ON adds OpenBLAS's cblas_sgemm rows, -DSCRATCHGPT_DNNL=ON (apt:
// libdnnl-dev) oneDNN's dnnl_sgemm rows. Wall time (the kernels are threaded).
//   build-*/matmul_bench --benchmark_filter=small   (or shakespeare / gpt2)
//   SCRATCHGPT_THREADS=1 OPENBLAS_NUM_THREADS=1 OMP_NUM_THREADS=1 build-*/matmul_bench  (1 core)
// Thread counts: ours follows SCRATCHGPT_THREADS; Debian's OpenBLAS (libopenblas0-pthread) uses
// pthreads and OPENBLAS_NUM_THREADS; Debian's oneDNN 2.6 is built on OpenMP (libgomp; the label
// says so), so OMP_NUM_THREADS sets its threads (the process shows one thread per OpenMP thread in
// /proc/<pid>/status). Set all three alike. The "onednn/" rows are one dnnl_sgemm over the whole
// product on oneDNN's own threads; what training runs with --matmul onednn or mixed (tiles of
// single-threaded calls on our pool, matmul_onednn.cpp) is the "matmul/" rows with
// SCRATCHGPT_MATMUL=onednn (the two differed by 2x on one product). Each library row first
// checks one call against ours and stops with an error if the results differ, so a wrong
// transpose flag cannot pass as a fast result.
#include <benchmark/benchmark.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <new>
#include <random>
#include <string>
#include <vector>

#include "bench_main.h"
#include "core/arena.h"
#include "core/thread_pool.h"
#include "kernels/cpu/matmul.h"

#ifdef SCRATCHGPT_HAVE_BLAS
#include <cblas.h>
#endif
#ifdef SCRATCHGPT_HAVE_DNNL
#include <dnnl.h>
#endif

namespace {

using namespace scratchgpt;

enum Op { kForward = 0, kDinp = 1, kDweight = 2 };

// Operands on cache-line boundaries, as the model's tensors are (core/arena.h): oneDNN's AVX2
// sgemm reads a B aligned so up to 1.8x slower than one 16 bytes past it (docs/bench-log.md), so
// rows timed on malloc's alignment would not be the step's.
template <class T>
struct CacheLineAllocator {
  using value_type = T;
  CacheLineAllocator() = default;
  template <class U>
  CacheLineAllocator(const CacheLineAllocator<U>&) {}
  T* allocate(size_t n) {
    return static_cast<T*>(::operator new(n * sizeof(T), std::align_val_t{Arena::kAlign}));
  }
  void deallocate(T* p, size_t) { ::operator delete(p, std::align_val_t{Arena::kAlign}); }
  bool operator==(const CacheLineAllocator&) const { return true; }
};
using Buffer = std::vector<float, CacheLineAllocator<float>>;

struct Data {
  Buffer inp, w, bias, out, dout, dinp, dw;
  Data(int N, int C, int OC)
      : inp(size_t(N) * C),
        w(size_t(OC) * C),
        bias(OC),
        out(size_t(N) * OC),
        dout(size_t(N) * OC),
        dinp(size_t(N) * C),
        dw(size_t(OC) * C) {
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

void run_ours(Data& d, int op, int N, int C, int OC) {
  if (op == kForward)
    cpu::matmul_forward(bench::ctx(), d.out.data(), d.inp.data(), d.w.data(), d.bias.data(), N, C,
                        OC);
  else if (op == kDinp)
    cpu::matmul_backward(bench::ctx(), d.dinp.data(), nullptr, nullptr, d.dout.data(), d.inp.data(),
                         d.w.data(), N, C, OC);
  else
    cpu::matmul_backward(bench::ctx(), nullptr, d.dw.data(), nullptr, d.dout.data(), d.inp.data(),
                         d.w.data(), N, C, OC);
}

void BM_matmul(benchmark::State& state) {
  const int N = state.range(0), C = state.range(1), OC = state.range(2);
  const int op = state.range(3);
  Data d(N, C, OC);
  for (auto _ : state) {
    run_ours(d, op, N, C, OC);
    benchmark::ClobberMemory();
  }
  set_counters(state, N, C, OC);
  state.SetLabel(simd_level_name(bench::ctx().isa));
}

// A library's row-major sgemm: c (M, Nc) = op(a) op(b) + beta * c, where op(x) is x or x^T.
// Returns false if the library reports an error.
using Sgemm = bool (*)(bool trans_a, bool trans_b, int M, int Nc, int K, const float* a, int lda,
                       const float* b, int ldb, float beta, float* c, int ldc);

// The three products as plain GEMMs; forward leaves the bias out (a rank-1 update), and the
// backward products accumulate (beta = 1) as ours do.
bool run_library(Sgemm gemm, Data& d, int op, int N, int C, int OC) {
  if (op == kForward)  // out (N, OC) = inp (N, C) W^T
    return gemm(false, true, N, OC, C, d.inp.data(), C, d.w.data(), C, 0.0f, d.out.data(), OC);
  if (op == kDinp)  // dinp (N, C) += dout (N, OC) W (OC, C)
    return gemm(false, false, N, C, OC, d.dout.data(), OC, d.w.data(), C, 1.0f, d.dinp.data(), C);
  // dW (OC, C) += dout^T inp
  return gemm(true, false, OC, C, N, d.dout.data(), OC, d.inp.data(), C, 1.0f, d.dw.data(), C);
}

// One library call against ours, from zeroed outputs (the bias added to the library's forward).
// Empty if they agree within a float-summation bound that grows with the reduction length K.
std::string check_library(Sgemm gemm, Data& d, int op, int N, int C, int OC) {
  Buffer& result = op == kForward ? d.out : op == kDinp ? d.dinp : d.dw;
  const int K = op == kForward ? C : op == kDinp ? OC : N;
  std::fill(result.begin(), result.end(), 0.0f);
  run_ours(d, op, N, C, OC);
  const Buffer ours = result;
  std::fill(result.begin(), result.end(), 0.0f);
  if (!run_library(gemm, d, op, N, C, OC)) return "the library returned an error";
  if (op == kForward)
    for (size_t i = 0; i < result.size(); ++i) result[i] += d.bias[i % size_t(OC)];
  for (size_t i = 0; i < result.size(); ++i) {
    const float tol = 1e-6f * float(K) * (1.0f + std::abs(ours[i]));
    if (!(std::abs(result[i] - ours[i]) <= tol))
      return "differs from ours at element " + std::to_string(i) + ": " +
             std::to_string(result[i]) + " vs " + std::to_string(ours[i]);
  }
  return "";
}

void run_library_bench(benchmark::State& state, Sgemm gemm, const std::string& label) {
  const int N = state.range(0), C = state.range(1), OC = state.range(2);
  const int op = state.range(3);
  Data d(N, C, OC);
  // The check also warms the library up (oneDNN generates its kernels on the first call).
  if (const std::string err = check_library(gemm, d, op, N, C, OC); !err.empty()) {
    state.SkipWithError(err.c_str());
    return;
  }
  bool ok = true;
  for (auto _ : state) {
    ok = run_library(gemm, d, op, N, C, OC) && ok;
    benchmark::ClobberMemory();
  }
  if (!ok) state.SkipWithError("the library returned an error");
  set_counters(state, N, C, OC);
  state.SetLabel(label);
}

#ifdef SCRATCHGPT_HAVE_BLAS
bool openblas_sgemm(bool trans_a, bool trans_b, int M, int Nc, int K, const float* a, int lda,
                    const float* b, int ldb, float beta, float* c, int ldc) {
  cblas_sgemm(CblasRowMajor, trans_a ? CblasTrans : CblasNoTrans,
              trans_b ? CblasTrans : CblasNoTrans, M, Nc, K, 1.0f, a, lda, b, ldb, beta, c, ldc);
  return true;
}

void BM_blas(benchmark::State& state) { run_library_bench(state, openblas_sgemm, "cblas_sgemm"); }
#endif

#ifdef SCRATCHGPT_HAVE_DNNL
bool onednn_sgemm(bool trans_a, bool trans_b, int M, int Nc, int K, const float* a, int lda,
                  const float* b, int ldb, float beta, float* c, int ldc) {
  return dnnl_sgemm(trans_a ? 'T' : 'N', trans_b ? 'T' : 'N', M, Nc, K, 1.0f, a, lda, b, ldb, beta,
                    c, ldc) == dnnl_success;
}

// "oneDNN 2.6.3 OpenMP": the version and threading runtime of the library actually loaded.
std::string onednn_label() {
  const dnnl_version_t* v = dnnl_version();
  const unsigned rt = v->cpu_runtime;
  const char* runtime = rt == DNNL_RUNTIME_OMP   ? "OpenMP"
                        : rt == DNNL_RUNTIME_TBB ? "TBB"
                        : rt == DNNL_RUNTIME_SEQ ? "sequential"
                                                 : "other runtime";
  return "oneDNN " + std::to_string(v->major) + "." + std::to_string(v->minor) + "." +
         std::to_string(v->patch) + " " + runtime;
}

void BM_dnnl(benchmark::State& state) {
  static const std::string label = onednn_label();
  run_library_bench(state, onednn_sgemm, label);
}
#endif

struct Shape {
  const char* model;
  int N, C, OC;
};

// N = B*T. Per block: qkv (C -> 3C), attention projection (C -> C), MLP up (C -> 4C) and down
// (4C -> C); then the lm_head (C -> V).
const Shape kShapes[] = {
    {"small", 768, 128, 384},          {"small", 768, 128, 128},
    {"small", 768, 128, 512},          {"small", 768, 512, 128},
    {"small", 768, 128, 65},           {"shakespeare", 16384, 384, 1152},
    {"shakespeare", 16384, 384, 384},  {"shakespeare", 16384, 384, 1536},
    {"shakespeare", 16384, 1536, 384}, {"shakespeare", 16384, 384, 65},
    {"shakespeare-b8", 2048, 384, 1152}, {"shakespeare-b8", 2048, 384, 384},
    {"shakespeare-b8", 2048, 384, 1536}, {"shakespeare-b8", 2048, 1536, 384},
    {"shakespeare-b8", 2048, 384, 65},
    {"gpt2", 256, 768, 2304},          {"gpt2", 256, 768, 768},
    {"gpt2", 256, 768, 3072},          {"gpt2", 256, 3072, 768},
    {"gpt2", 256, 768, 50257},
};

void add(const std::string& name, void (*fn)(benchmark::State&), const Shape& s, int op) {
  benchmark::RegisterBenchmark(name.c_str(), fn)
      ->Args({s.N, s.C, s.OC, op})
      ->ArgNames({"N", "C", "OC", "op"})
      ->UseRealTime()
      ->Unit(benchmark::kMillisecond);
}

int register_all() {
  const char* ops[] = {"forward", "dinp", "dweight"};
  for (const Shape& s : kShapes)
    for (int op = 0; op < 3; ++op) {
      const std::string suffix = std::string(s.model) + "/" + ops[op];
      add("matmul/" + suffix, BM_matmul, s, op);
#ifdef SCRATCHGPT_HAVE_BLAS
      add("openblas/" + suffix, BM_blas, s, op);
#endif
#ifdef SCRATCHGPT_HAVE_DNNL
      add("onednn/" + suffix, BM_dnnl, s, op);
#endif
    }
  return 0;
}
const int kRegistered = register_all();

}  // namespace

int main(int argc, char** argv) { return scratchgpt::bench::run_benchmarks(argc, argv); }
