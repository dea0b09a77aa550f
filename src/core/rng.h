// rng.h: Rng, the project's one seeded random generator, built to be bit-compatible with
// PyTorch's CPU generator (mt19937 + PyTorch's transforms), so a seeded scratchgpt run and the
// same-seeded PyTorch program draw the same numbers in the same call order.
// Every seeded operation (init, batches, dropout, sampling) goes through it.
// Leaves out: other generators (Philox/CUDA), other dtypes than float32 / int64.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace scratchgpt {

class Rng {
 public:
  explicit Rng(uint64_t seed = 67280421310721ULL);  // torch's default seed
  void manual_seed(uint64_t seed);                  // torch.manual_seed(seed)

  uint32_t random();    // one raw 32-bit mt19937 draw
  uint64_t random64();  // two draws combined, as torch's random64()
  // One double in [0, 1) from random64()'s low 53 bits (torch's double uniform).
  double uniform_double();

  // The tensor-level functions below draw exactly what the same torch call draws.
  void rand(float* out, int64_t n);                             // torch.rand(n)
  void uniform(float* out, int64_t n, float from, float to);    // t.uniform_(from, to)
  void randn(float* out, int64_t n);                            // torch.randn(n)
  // t.normal_(mean, std); mean and std are doubles as in Python (short tensors use them in double).
  void normal(float* out, int64_t n, double mean, double std);
  void randint(int64_t* out, int64_t n, int64_t low, int64_t high);  // torch.randint(low, high, (n,))
  int64_t randint(int64_t low, int64_t high);                   // torch.randint(low, high, (1,)).item()
  // torch.bernoulli(torch.full((n,), p)): out[i] = 1 with probability p, else 0 (float p path).
  void bernoulli(float* out, int64_t n, float p);
  // t.bernoulli_(p) with a Python-float p (double path: two raw draws per element).
  // nn.Dropout(p) in training mode draws its keep mask as bernoulli_scalar(mask, n, 1 - p).
  void bernoulli_scalar(float* out, int64_t n, double p);
  // The exact noise nn.Dropout(p) multiplies by in training mode: bernoulli_(1 - p) then
  // div_(1 - p), i.e. 0 or 1.0f / float(1 - p). Dropout output = x * noise.
  void dropout_noise(float* out, int64_t n, double p);
  void exponential(float* out, int64_t n, double lambda);      // t.exponential_(lambda)
  // torch.multinomial(probs (rows, n), num_samples, replacement); probs need not be normalised.
  void multinomial(int64_t* out, const float* probs, int64_t rows, int64_t n, int64_t num_samples,
                   bool replacement);

  // Saves and restores the whole generator state (for checkpoints and exact resume).
  std::vector<uint8_t> get_state() const;
  void set_state(const std::vector<uint8_t>& state);

 private:
  static constexpr int kN = 624;
  uint32_t mt_[kN];
  int left_ = 1;
  int next_ = 0;
  uint64_t seed_ = 0;
  // torch caches the second value of a Box-Muller pair for scalar normal draws.
  bool has_next_normal_ = false;
  double next_normal_ = 0.0;
  bool has_next_float_normal_ = false;
  float next_float_normal_ = 0.0f;
  void next_state();
  float uniform_float(float from, float to);  // one float uniform in [from, to), 1 raw draw
  double normal_double();                     // one scalar double N(0, 1) draw (with the cache)
};

}  // namespace scratchgpt
