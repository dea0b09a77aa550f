// matvec_bench.cpp: cpu::matvec_forward against the packed GEMM (detail::gemm) for a few rows N at
// decoding shapes (GPT-2 small's c_attn, c_fc, c_proj, lm_head and the char model's c_fc), to pick
// the N below which cpu::matmul_forward uses the matvec (kMatvecMaxN). Wall time, GB/s of weight.
// BM_QuantMatvec: the same shapes at N = 1 and 64 with fp32, bf16 and int8 (Q8) weights
// (--weights): GB/s of the bytes each reads, GMAC/s.
//   SCRATCHGPT_THREADS=1 build-*/matvec_bench --benchmark_filter=N:4
#include <benchmark/benchmark.h>

#include <cstdlib>
#include <random>
#include <vector>

#include "bench_main.h"
#include "core/thread_pool.h"
#include "kernels/cpu/gemm.h"
#include "kernels/cpu/matmul.h"
#include "kernels/cpu/matvec.h"
#include "kernels/cpu/quant_matvec.h"

namespace {

using namespace scratchgpt;

struct Data {
  std::vector<float> inp, w, bias, out;
  Data(int N, int C, int OC)
      : inp(size_t(N) * C), w(size_t(OC) * C), bias(OC), out(size_t(N) * OC) {
    std::mt19937 gen(1);
    std::uniform_real_distribution<float> d(-1.0f, 1.0f);
    for (auto* v : {&inp, &w, &bias})
      for (float& x : *v) x = d(gen);
  }
};

// args: N, C, OC, use_gemm
void BM_Matvec(benchmark::State& state) {
  const int N = static_cast<int>(state.range(0)), C = static_cast<int>(state.range(1)),
            OC = static_cast<int>(state.range(2));
  const bool gemm = state.range(3) != 0;
  Data d(N, C, OC);
  for (auto _ : state) {
    if (gemm) {
      const ExecContext& ex = bench::ctx();
      cpu::detail::gemm(ex.isa, {.M = N, .N = OC, .K = C,
                                 .A = d.inp.data(), .rs_a = C, .cs_a = 1,
                                 .B = d.w.data(), .rs_b = 1, .cs_b = C,
                                 .C = d.out.data(), .ldc = OC, .init = true,
                                 .bias = d.bias.data()},
                        ex.workers());
    } else {
      cpu::matvec_forward(bench::ctx(), d.out.data(), d.inp.data(), d.w.data(), d.bias.data(), N, C,
                          OC);
    }
    benchmark::DoNotOptimize(d.out.data());
  }
  state.SetLabel(gemm ? "gemm" : "matvec");
  state.counters["GB/s"] =
      benchmark::Counter(4.0 * C * OC * 1e-9, benchmark::Counter::kIsIterationInvariantRate);
}

void shapes(benchmark::internal::Benchmark* b) {
  b->ArgNames({"N", "C", "OC", "gemm"});
  for (int n : {1, 2, 4, 6, 8})
    for (auto [c, oc] : {std::pair{768, 2304}, {768, 3072}, {3072, 768}, {768, 50257}, {384, 1536}})
      for (int g : {0, 1}) b->Args({n, c, oc, g});
  b->UseRealTime();
}

BENCHMARK(BM_Matvec)->Apply(shapes);

// args: C, OC, format (0 fp32, 1 bf16, 2 int8), N (1: decoding; 64: a prompt's pass, GPT::prefill)
void BM_QuantMatvec(benchmark::State& state) {
  const int C = static_cast<int>(state.range(0)), OC = static_cast<int>(state.range(1));
  const auto format = static_cast<cpu::WeightFormat>(state.range(2));
  const int N = static_cast<int>(state.range(3));
  Data d(N, C, OC);
  const ExecContext& ex = bench::ctx();
  const cpu::QuantizedWeight q = format == cpu::WeightFormat::kFp32
                                     ? cpu::QuantizedWeight()
                                     : cpu::quantize_weight(ex, format, d.w.data(), OC, C);
  for (auto _ : state) {
    if (format == cpu::WeightFormat::kFp32)
      cpu::matmul_forward(ex, d.out.data(), d.inp.data(), d.w.data(), d.bias.data(), N, C, OC);
    else
      cpu::quant_matvec_forward(ex, d.out.data(), d.inp.data(), q, d.bias.data(), N);
    benchmark::DoNotOptimize(d.out.data());
  }
  state.SetLabel(cpu::kWeightFormatNames[state.range(2)].second);
  const double bytes = format == cpu::WeightFormat::kFp32 ? 4.0 * C * OC : q.bytes();
  state.counters["GB/s"] =
      benchmark::Counter(bytes * 1e-9, benchmark::Counter::kIsIterationInvariantRate);
  state.counters["GMAC/s"] = benchmark::Counter(1e-9 * N * C * OC,
                                                benchmark::Counter::kIsIterationInvariantRate);
}

void quant_shapes(benchmark::internal::Benchmark* b) {
  b->ArgNames({"C", "OC", "fmt", "N"});
  for (int n : {1, 64})
    for (auto [c, oc] : {std::pair{768, 2304}, {768, 3072}, {3072, 768}, {768, 50257}})
      for (int f : {0, 1, 2}) b->Args({c, oc, f, n});
  b->UseRealTime();
}

BENCHMARK(BM_QuantMatvec)->Apply(quant_shapes);

}  // namespace

int main(int argc, char** argv) { return scratchgpt::bench::run_benchmarks(argc, argv); }
