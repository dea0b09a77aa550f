// rng.h: Rng, the project's one seeded random generator, bit-compatible with PyTorch 1.13's CPU
// generator (mt19937 plus torch's transforms; x86-64 build with AVX2 kernels and without MKL, as
// Debian's python3-torch): after torch.manual_seed(s) / Rng(s), the same calls in the same order
// give bit-identical float32 / int64 values (proven by tests/core/rng_test.cpp against fixtures).
// Every seeded operation (init, batches, dropout, sampling) goes through it.
// Leaves out: other generators (Philox/CUDA), torch's non-AVX2 randn kernel, dtypes other than
// float32 / int64, and torch.get_rng_state()'s byte format (get_state has its own).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "core/cpu_features.h"

namespace scratchgpt {

// Not thread-safe: give each consumer (init, batches, dropout, sampling) its own Rng or a lock.
class Rng {
 public:
  // 67280421310721 is torch's default_rng_seed_val; torch itself seeds its global generator
  // randomly at start-up, so seed explicitly (torch.manual_seed) to compare with it.
  explicit Rng(uint64_t seed = 67280421310721ULL);
  void manual_seed(uint64_t seed);  // torch.manual_seed(seed)

  uint32_t random();  // one raw 32-bit mt19937 draw
  // n raw draws at once: exactly what n calls of random() return, from any position in the
  // state, freely mixed with single calls. The twist and the tempering run over whole blocks,
  // with AVX2 when this generator's SIMD level allows it (set_simd_level); the scalar code is the
  // twin, and both give the same bits.
  void fill_raw(uint32_t* out, int64_t n);
  uint64_t random64();  // two draws combined, as torch's random64()
  // One double in [0, 1) from random64()'s low 53 bits (torch's double uniform).
  double uniform_double();
  // n of them at once: what n calls of uniform_double() return (drawn through fill_raw).
  void uniform_doubles(double* out, int64_t n);

  // The tensor-level functions below draw exactly what the same torch call draws; n is the
  // tensor's numel (shape does not matter, only the element count).
  // torch.rand(n) / t.uniform_(from, to): one raw draw per element (24 bits -> float).
  void rand(float* out, int64_t n);
  void uniform(float* out, int64_t n, float from, float to);
  // torch.randn(n) / t.normal_(mean, std). n >= 16: n uniform floats, then Box-Muller in blocks of
  // 16 with torch's float log/sincos (plus 16 fresh uniforms for the last 16 slots when n % 16 !=
  // 0). n < 16: scalar double Box-Muller, two 53-bit uniforms per pair, the pair's second value
  // cached for the next scalar draw (across calls, until manual_seed). mean and std are doubles as
  // in Python: the short path uses them in double.
  void randn(float* out, int64_t n);
  void normal(float* out, int64_t n, double mean, double std);
  // torch.randint(low, high, (n,)): one raw draw per element, or two (random64) when
  // high - low >= 2^32; value = low + draw % (high - low).
  void randint(int64_t* out, int64_t n, int64_t low, int64_t high);
  int64_t randint(int64_t low, int64_t high);  // torch.randint(low, high, (1,)).item()
  // torch.randperm(n): the identity, then for i < n - 1 swap [i] with [i + random() % (n - i)].
  void randperm(int64_t* out, int64_t n);
  // torch.bernoulli(torch.full((n,), p)): out[i] = 1 with probability p, else 0 (float p path).
  void bernoulli(float* out, int64_t n, float p);
  // t.bernoulli_(p) with a Python-float p (double path: two raw draws per element).
  // nn.Dropout(p) in training mode draws its keep mask as bernoulli_scalar(mask, n, 1 - p).
  void bernoulli_scalar(float* out, int64_t n, double p);
  // The exact noise nn.Dropout(p) multiplies by in training mode: bernoulli_(1 - p) then
  // div_(1 - p), i.e. 0 or 1.0f / float(1 - p). Dropout output = x * noise. p == 0 (all 1) and
  // p == 1 (all 0) draw nothing, as torch short-cuts them.
  void dropout_noise(float* out, int64_t n, double p);
  // t.exponential_(lambda): -1/lambda * log(1 - u), u a double uniform (two raw draws each).
  void exponential(float* out, int64_t n, double lambda);
  // torch.multinomial(probs (rows, n), num_samples, replacement); probs need not be normalised;
  // rows = 1 also serves 1-D probs. Without replacement (torch's default, e.g. the lecture's
  // multinomial(probs, num_samples=1)): exponential(rows * n) then the largest p / q per row. With
  // replacement: one double uniform per sample against the row's float CDF. out: (rows,
  // num_samples).
  void multinomial(int64_t* out, const float* probs, int64_t rows, int64_t n, int64_t num_samples,
                   bool replacement);

  // Saves and restores the whole generator state, including the cached scalar normal (for
  // checkpoints and exact resume). Our own versioned format, not torch.get_rng_state()'s.
  std::vector<uint8_t> get_state() const;
  void set_state(const std::vector<uint8_t>& state);

  // The code path of the bulk draws: AVX2 at kAvx2 and above (capped at what the CPU has),
  // scalar below. The draws are the same bits either way; only speed changes. Default:
  // default_simd_level() (SCRATCHGPT_SIMD when set). Not part of the saved state.
  void set_simd_level(SimdLevel level);

 private:
  static constexpr int kN = 624;
  uint32_t mt_[kN];
  int left_ = 1;
  int next_ = 0;
  bool avx2_ = false;  // bulk draws with AVX2 (set_simd_level)
  uint64_t seed_ = 0;
  // torch caches the second value of a Box-Muller pair for scalar normal draws.
  bool has_next_normal_ = false;
  double next_normal_ = 0.0;
  bool has_next_float_normal_ = false;
  float next_float_normal_ = 0.0f;
  void next_state();
  // The bulk transforms draw through a stack block of this many raw words (no allocation).
  static constexpr int64_t kBlockWords = 2048;
  // out[i] = one if uniform_double() < p else 0, two raw draws per element, in blocks.
  void bernoulli_double(float* out, int64_t n, double p, float one);
  float uniform_float(float from, float to);  // one float uniform in [from, to), 1 raw draw
  double normal_double();                     // one scalar double N(0, 1) draw (with the cache)
};

}  // namespace scratchgpt
