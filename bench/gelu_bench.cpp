// gelu_bench.cpp: cpu::gelu_forward/backward (tanh approximation) and
// cpu::gelu_exact_forward/backward (erf) at each SIMD level the CPU has (scalar: the reference
// loop; avx2; avx512), at the size of one MLP activation of each target model, with the
// pool's threads. Prints elements per second and bytes per second (forward: 8 bytes moved per
// element, backward: 16).
//   build-*/gelu_bench
#include <benchmark/benchmark.h>

#include <random>
#include <string>
#include <vector>

#include "bench_main.h"
#include "kernels/cpu/gelu.h"

namespace {

using namespace scratchgpt;

struct Shape {
  const char* name;
  int64_t n;  // B * T * 4C
};
const Shape kShapes[] = {
    {"small", 12LL * 64 * 512},         // shakespeare-char-small
    {"gpt2", 4LL * 64 * 3072},          // GPT-2 small at B=4, T=64
    {"char", 64LL * 256 * 1536},        // shakespeare-char
};

void BM_gelu(benchmark::State& state, int64_t n, SimdLevel level, bool backward, bool exact) {
  std::mt19937 gen(1);
  std::uniform_real_distribution<float> d(-4.0f, 4.0f);
  std::vector<float> x(n), dy(n), y(n), dx(n, 0.0f);
  for (int64_t i = 0; i < n; ++i) x[i] = d(gen), dy[i] = d(gen);
  ExecContext ex = bench::ctx();
  ex.isa = level;
  for (auto _ : state) {
    if (backward && exact)
      cpu::gelu_exact_backward(ex, dx.data(), x.data(), dy.data(), n);
    else if (backward)
      cpu::gelu_backward(ex, dx.data(), x.data(), dy.data(), n);
    else if (exact)
      cpu::gelu_exact_forward(ex, y.data(), x.data(), n);
    else
      cpu::gelu_forward(ex, y.data(), x.data(), n);
    benchmark::ClobberMemory();
  }
  state.SetItemsProcessed(state.iterations() * n);
  state.SetBytesProcessed(state.iterations() * n * (backward ? 16 : 8));
}

void register_all() {
  for (const Shape& s : kShapes)
    for (SimdLevel level : {SimdLevel::kScalar, SimdLevel::kAvx2, SimdLevel::kAvx512}) {
      if (level > detected_simd_level()) continue;
      for (bool exact : {false, true})
        for (bool bwd : {false, true}) {
          const std::string name = std::string(exact ? "gelu_exact_" : "gelu_") +
                                   (bwd ? "bwd/" : "fwd/") + s.name + "/" + simd_level_name(level);
          benchmark::RegisterBenchmark(name.c_str(), BM_gelu, s.n, level, bwd, exact)
              ->Unit(benchmark::kMicrosecond)
              ->UseRealTime();
        }
    }
}

}  // namespace

int main(int argc, char** argv) {
  register_all();
  return scratchgpt::bench::run_benchmarks(argc, argv);
}
