// rowwise_bench.cpp: the row kernels cpu::layernorm_*, cpu::softmax_*, cpu::crossentropy_* and the
// stream cpu::adamw_update at each SIMD level the CPU has (scalar: the reference loops; avx2;
// avx512), at the shapes one training step of the target models gives them, with the pool's
// threads. Prints rows (or elements) per second. Uses only the public cpu:: headers, so the same
// file measures an older tree too (docs/bench-log.md, 2026-11-24).
//   build-*/rowwise_bench --benchmark_filter=avx512
#include <benchmark/benchmark.h>

#include <cstdint>
#include <random>
#include <string>
#include <vector>

#include "bench_main.h"
#include "kernels/cpu/adamw.h"
#include "kernels/cpu/crossentropy.h"
#include "kernels/cpu/layernorm.h"
#include "kernels/cpu/softmax.h"

namespace {

using namespace scratchgpt;

struct Shape {
  const char* name;
  int N, C, V;     // N = B * T rows, C channels, V vocabulary
  int64_t params;  // AdamW's n
};
const Shape kShapes[] = {
    {"small", 12 * 64, 128, 65, 800000},     // shakespeare-char-small
    {"char", 64 * 256, 384, 65, 10750000},   // shakespeare-char
    {"gpt2", 4 * 64, 768, 50257, 10750000},  // GPT-2 small at B=4, T=64 (AdamW: a slice)
};

std::vector<float> random_floats(size_t n, uint32_t seed, float lo, float hi) {
  std::mt19937 gen(seed);
  std::uniform_real_distribution<float> d(lo, hi);
  std::vector<float> v(n);
  for (float& x : v) x = d(gen);
  return v;
}

enum class Op { kLnFwd, kLnBwd, kSoftmaxFwd, kSoftmaxBwd, kCeFwd, kCeBwd, kAdamW };
const char* op_name(Op op) {
  switch (op) {
    case Op::kLnFwd:
      return "layernorm_fwd";
    case Op::kLnBwd:
      return "layernorm_bwd";
    case Op::kSoftmaxFwd:
      return "softmax_fwd";
    case Op::kSoftmaxBwd:
      return "softmax_bwd";
    case Op::kCeFwd:
      return "crossentropy_fwd";
    case Op::kCeBwd:
      return "crossentropy_bwd";
    case Op::kAdamW:
      return "adamw";
  }
  return "";
}

void BM_row(benchmark::State& state, Shape s, Op op, SimdLevel level) {
  ExecContext ex = bench::ctx();
  ex.isa = level;
  const bool ce = op == Op::kCeFwd || op == Op::kCeBwd;
  const int N = s.N, C = ce ? s.V : s.C;  // softmax: rows of C (its kernel is the same per row)
  const size_t n = op == Op::kAdamW ? size_t(s.params) : size_t(N) * C;
  auto x = random_floats(n, 1, -4.0f, 4.0f), dy = random_floats(n, 2, -1.0f, 1.0f);
  auto w = random_floats(C, 3, 0.5f, 1.5f), b = random_floats(C, 4, -0.1f, 0.1f);
  std::vector<float> y(n), dx(n), mean(N), rstd(N), losses(N), dlosses(N, 1.0f / N);
  std::vector<float> dw(C), db(C), m(n, 0.0f), v(n, 0.0f);
  std::vector<int32_t> targets(N);
  for (int i = 0; i < N; ++i) targets[i] = (i * 31 + 7) % C;
  if (op == Op::kLnBwd)
    cpu::layernorm_forward(ex, y.data(), mean.data(), rstd.data(), x.data(), w.data(), b.data(), N,
                           C);
  if (op == Op::kSoftmaxBwd) cpu::softmax_forward(ex, y.data(), x.data(), N, C);
  if (op == Op::kCeBwd)
    cpu::crossentropy_forward(ex, losses.data(), y.data(), x.data(), targets.data(), N, C);
  int t = 1;
  for (auto _ : state) {
    switch (op) {
      case Op::kLnFwd:
        cpu::layernorm_forward(ex, y.data(), mean.data(), rstd.data(), x.data(), w.data(), b.data(),
                               N, C);
        break;
      case Op::kLnBwd:
        cpu::layernorm_backward(ex, dx.data(), dw.data(), db.data(), dy.data(), x.data(), w.data(),
                                mean.data(), rstd.data(), N, C);
        break;
      case Op::kSoftmaxFwd:
        cpu::softmax_forward(ex, y.data(), x.data(), N, C);
        break;
      case Op::kSoftmaxBwd:
        cpu::softmax_backward(ex, dx.data(), dy.data(), y.data(), N, C);
        break;
      case Op::kCeFwd:
        cpu::crossentropy_forward(ex, losses.data(), y.data(), x.data(), targets.data(), N, C);
        break;
      case Op::kCeBwd:
        cpu::crossentropy_backward(ex, dx.data(), y.data(), targets.data(), dlosses.data(), N, C);
        break;
      case Op::kAdamW:
        cpu::adamw_update(ex, x.data(), dy.data(), m.data(), v.data(), int64_t(n), 1e-3f, 0.9f,
                          0.95f, 1e-8f, 0.1f, t++ % 1000 + 1);
        break;
    }
    benchmark::ClobberMemory();
  }
  state.SetItemsProcessed(state.iterations() * int64_t(op == Op::kAdamW ? n : size_t(N)));
}

void register_all() {
  for (const Shape& s : kShapes)
    for (Op op : {Op::kLnFwd, Op::kLnBwd, Op::kSoftmaxFwd, Op::kSoftmaxBwd, Op::kCeFwd, Op::kCeBwd,
                  Op::kAdamW})
      for (SimdLevel level : {SimdLevel::kScalar, SimdLevel::kAvx2, SimdLevel::kAvx512}) {
        if (level > detected_simd_level()) continue;
        const std::string name =
            std::string(op_name(op)) + "/" + s.name + "/" + simd_level_name(level);
        benchmark::RegisterBenchmark(name.c_str(), BM_row, s, op, level)
            ->Unit(benchmark::kMicrosecond)
            ->UseRealTime();
      }
}

}  // namespace

int main(int argc, char** argv) {
  register_all();
  return scratchgpt::bench::run_benchmarks(argc, argv);
}
