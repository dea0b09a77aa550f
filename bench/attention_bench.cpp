// attention_bench.cpp: cpu::attention_forward/backward (stored (T, T) matrices) and
// cpu::flash_attention_* (tiled, nothing T x T stored; tile sizes 16..128) at the three target
// models' shapes and GPT-2's full context (wall time, threaded), and ref:: at the small shape as
// the baseline. GFLOP/s counts only the causal half of the two products per direction:
// fwd 2 * B NH (T (T+1) / 2) HS * 2, bwd twice that (flash's backward recomputes q k^T on top).
//   build-*/attention_bench --benchmark_filter='cpu|flash'
#include <benchmark/benchmark.h>

#include <cstdlib>
#include <random>
#include <string>
#include <vector>

#include "bench_main.h"
#include "core/thread_pool.h"
#include "kernels/cpu/attention.h"
#include "kernels/cpu/flash_attention.h"
#include "kernels/ref/attention.h"

namespace {

using namespace scratchgpt;

struct Data {
  int B, T, C, NH;
  std::vector<float> qkv, out, preatt, att, dout, dqkv, dpreatt, datt, lse, drop;
  Data(int b, int t, int c, int nh, bool stored, float p = 0.0f)
      : B(b),
        T(t),
        C(c),
        NH(nh),
        qkv(size_t(b) * t * 3 * c),
        out(size_t(b) * t * c),
        preatt(stored ? size_t(b) * nh * t * t : 0),
        att(preatt.size()),
        dout(out.size()),
        dqkv(qkv.size()),
        dpreatt(preatt.size()),
        datt(preatt.size()),
        lse(size_t(b) * nh * t),
        drop(p > 0.0f ? size_t(b) * nh * t * t : 0) {
    std::mt19937 gen(1);
    std::uniform_real_distribution<float> d(-1.0f, 1.0f);
    for (auto* v : {&qkv, &dout})
      for (float& x : *v) x = d(gen);
    std::uniform_real_distribution<float> u(0.0f, 1.0f);
    for (float& x : drop) x = u(gen) < p ? 0.0f : 1.0f / (1.0f - p);  // as Rng::dropout_noise
  }
  const float* mask() const { return drop.empty() ? nullptr : drop.data(); }
  double fwd_flops() const { return 2.0 * B * NH * (T * (T + 1.0) / 2.0) * (C / NH) * 2.0; }
};

enum Impl { kCpu = 0, kRef = 1, kFlash = 2 };

void BM_flash(benchmark::State& state, Data& d, bool backward, int tile) {
  cpu::detail::flash_attention_forward_tiled(bench::ctx(), d.out.data(), d.lse.data(), d.qkv.data(),
                                             d.B, d.T, d.C, d.NH, tile);
  for (auto _ : state) {
    if (!backward)
      cpu::detail::flash_attention_forward_tiled(bench::ctx(), d.out.data(), d.lse.data(),
                                                 d.qkv.data(), d.B, d.T, d.C, d.NH, tile);
    else
      cpu::detail::flash_attention_backward_tiled(bench::ctx(), d.dqkv.data(), d.dout.data(),
                                                  d.out.data(), d.lse.data(), d.qkv.data(), d.B,
                                                  d.T, d.C, d.NH, tile);
    benchmark::ClobberMemory();
  }
}

// cpu:: as the model calls it: no score arrays (preatt, dpreatt, datt = nullptr), and the
// dropout mask of the shapes that have one.
void BM_stored(benchmark::State& state, Data& d, bool backward, bool use_ref) {
  if (backward)
    cpu::attention_forward(bench::ctx(), d.out.data(), nullptr, d.att.data(), d.qkv.data(),
                           d.mask(), d.B, d.T, d.C, d.NH);
  for (auto _ : state) {
    if (!backward && !use_ref)
      cpu::attention_forward(bench::ctx(), d.out.data(), nullptr, d.att.data(), d.qkv.data(),
                             d.mask(), d.B, d.T, d.C, d.NH);
    else if (!backward)
      ref::attention_forward<float>(d.out.data(), d.preatt.data(), d.att.data(), d.qkv.data(),
                                    nullptr, d.B, d.T, d.C, d.NH);
    else if (!use_ref)
      cpu::attention_backward(bench::ctx(), d.dqkv.data(), nullptr, nullptr, d.dout.data(),
                              d.qkv.data(), d.att.data(), d.mask(), d.B, d.T, d.C, d.NH);
    else
      ref::attention_backward<float>(d.dqkv.data(), d.dpreatt.data(), d.datt.data(), d.dout.data(),
                                     d.qkv.data(), d.att.data(), nullptr, d.B, d.T, d.C, d.NH);
    benchmark::ClobberMemory();
  }
}

void BM_attention(benchmark::State& state) {
  const int impl = static_cast<int>(state.range(5));
  Data d(state.range(0), state.range(1), state.range(2), state.range(3), impl != kFlash,
         static_cast<float>(state.range(7)) / 100.0f);
  const bool backward = state.range(4) != 0;
  if (impl == kFlash)
    BM_flash(state, d, backward, static_cast<int>(state.range(6)));
  else
    BM_stored(state, d, backward, impl == kRef);
  state.counters["GFLOP/s"] = benchmark::Counter(d.fwd_flops() * (backward ? 2 : 1) * 1e-9,
                                                 benchmark::Counter::kIsIterationInvariantRate);
}

struct Shape {
  const char* model;
  int B, T, C, NH;
  int drop_percent;  // the dropout mask's p, in percent (cpu:: only: flash takes no mask)
};
// shakespeare-b8-drop: the preset's step at B = 8, dropout 0.2, as `bench --batch-size 8` runs it.
const Shape kShapes[] = {{"small", 12, 64, 128, 4, 0},
                         {"shakespeare", 64, 256, 384, 6, 0},
                         {"gpt2", 4, 64, 768, 12, 0},
                         {"gpt2-256", 1, 256, 768, 12, 0},
                         {"gpt2-512", 1, 512, 768, 12, 0},
                         {"gpt2-1024", 1, 1024, 768, 12, 0},
                         {"shakespeare-b8-drop", 8, 256, 384, 6, 20}};

int register_all() {
  for (const Shape& s : kShapes)
    for (int backward = 0; backward < 2; ++backward)
      for (int impl : {kCpu, kRef, kFlash})
        for (int tile : {16, 32, 64, 128}) {
          if (impl == kRef && std::string(s.model) != "small") continue;  // too slow to be useful
          if (impl != kFlash && tile != 16) continue;  // the tile is flash's alone
          if (impl != kCpu && s.drop_percent > 0) continue;
          const char* prefix = impl == kCpu ? "cpu/" : impl == kRef ? "ref/" : "flash/";
          const std::string name = prefix + std::string(s.model) +
                                   (backward ? "/backward" : "/forward") +
                                   (impl == kFlash ? "/tile:" + std::to_string(tile) : "");
          benchmark::RegisterBenchmark(name.c_str(), BM_attention)
              ->Args({s.B, s.T, s.C, s.NH, backward, impl, tile, s.drop_percent})
              ->ArgNames({"B", "T", "C", "NH", "bwd", "impl", "tile", "drop%"})
              ->UseRealTime()
              ->Unit(benchmark::kMillisecond);
        }
  return 0;
}
const int kRegistered = register_all();

}  // namespace

int main(int argc, char** argv) { return scratchgpt::bench::run_benchmarks(argc, argv); }
