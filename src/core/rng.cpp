// rng.cpp: mt19937 as PyTorch's CPU generator seeds and steps it, and PyTorch's transforms.
// FIRST VERSION: mt19937 core and rand(); the other transforms are being made torch-exact.
#include "core/rng.h"

#include <cmath>
#include <cstring>

#include "core/check.h"

namespace scratchgpt {

Rng::Rng(uint64_t seed) { manual_seed(seed); }

void Rng::manual_seed(uint64_t seed) {
  seed_ = seed;
  mt_[0] = static_cast<uint32_t>(seed & 0xffffffffULL);
  for (int j = 1; j < kN; ++j) mt_[j] = 1812433253u * (mt_[j - 1] ^ (mt_[j - 1] >> 30)) + j;
  left_ = 1;
  next_ = 0;
  has_next_normal_ = has_next_float_normal_ = false;
}

void Rng::next_state() {
  constexpr int kM = 397;
  constexpr uint32_t kMatrixA = 0x9908b0dfu, kUpper = 0x80000000u, kLower = 0x7fffffffu;
  auto mix = [&](uint32_t u, uint32_t v) {
    return (((u & kUpper) | (v & kLower)) >> 1) ^ ((v & 1u) ? kMatrixA : 0u);
  };
  int j = 0;
  for (; j < kN - kM; ++j) mt_[j] = mt_[j + kM] ^ mix(mt_[j], mt_[j + 1]);
  for (; j < kN - 1; ++j) mt_[j] = mt_[j + kM - kN] ^ mix(mt_[j], mt_[j + 1]);
  mt_[kN - 1] = mt_[kM - 1] ^ mix(mt_[kN - 1], mt_[0]);
  left_ = kN;
  next_ = 0;
}

uint32_t Rng::random() {
  if (--left_ <= 0) next_state();
  uint32_t y = mt_[next_++];
  y ^= (y >> 11);
  y ^= (y << 7) & 0x9d2c5680u;
  y ^= (y << 15) & 0xefc60000u;
  y ^= (y >> 18);
  return y;
}

uint64_t Rng::random64() {
  uint32_t hi = random();
  uint32_t lo = random();
  return (static_cast<uint64_t>(hi) << 32) | lo;
}

void Rng::rand(float* out, int64_t n) { uniform(out, n, 0.0f, 1.0f); }

void Rng::uniform(float* out, int64_t n, float from, float to) {
  for (int64_t i = 0; i < n; ++i) {
    float x = static_cast<float>(random() & ((1u << 24) - 1)) * std::ldexp(1.0f, -24);
    out[i] = x * (to - from) + from;
  }
}

void Rng::randn(float* out, int64_t n) { normal(out, n, 0.0f, 1.0f); }

void Rng::normal(float* out, int64_t n, float mean, float std) {
  // Box-Muller on double uniforms (to be made torch-exact).
  for (int64_t i = 0; i < n; ++i) {
    double u1 = (random64() & ((1ULL << 53) - 1)) * std::ldexp(1.0, -53);
    double u2 = (random64() & ((1ULL << 53) - 1)) * std::ldexp(1.0, -53);
    double r = std::sqrt(-2.0 * std::log1p(-u2));
    out[i] = static_cast<float>(r * std::cos(2.0 * M_PI * u1) * std + mean);
  }
}

int64_t Rng::randint(int64_t low, int64_t high) {
  SG_CHECK(high > low, "randint: empty range [", low, ", ", high, ")");
  uint64_t range = static_cast<uint64_t>(high - low);
  return low + static_cast<int64_t>(random() % range);
}

void Rng::randint(int64_t* out, int64_t n, int64_t low, int64_t high) {
  for (int64_t i = 0; i < n; ++i) out[i] = randint(low, high);
}

void Rng::bernoulli(float* out, int64_t n, float p) {
  for (int64_t i = 0; i < n; ++i) {
    float u;
    uniform(&u, 1, 0.0f, 1.0f);
    out[i] = u < p ? 1.0f : 0.0f;
  }
}

void Rng::multinomial(int64_t* out, const float* probs, int64_t rows, int64_t n,
                      int64_t num_samples, bool replacement) {
  for (int64_t r = 0; r < rows; ++r) {
    const float* p = probs + r * n;
    double total = 0;
    for (int64_t i = 0; i < n; ++i) total += p[i];
    for (int64_t s = 0; s < num_samples; ++s) {
      double u = (random64() & ((1ULL << 53) - 1)) * std::ldexp(1.0, -53) * total;
      double c = 0;
      int64_t pick = n - 1;
      for (int64_t i = 0; i < n; ++i) {
        c += p[i];
        if (u < c) {
          pick = i;
          break;
        }
      }
      out[r * num_samples + s] = pick;
    }
  }
}

std::vector<uint8_t> Rng::get_state() const {
  std::vector<uint8_t> s(sizeof(mt_) + 2 * sizeof(int) + sizeof(seed_));
  uint8_t* p = s.data();
  std::memcpy(p, mt_, sizeof(mt_));
  p += sizeof(mt_);
  std::memcpy(p, &left_, sizeof(int));
  p += sizeof(int);
  std::memcpy(p, &next_, sizeof(int));
  p += sizeof(int);
  std::memcpy(p, &seed_, sizeof(seed_));
  return s;
}

void Rng::set_state(const std::vector<uint8_t>& s) {
  SG_CHECK(s.size() == sizeof(mt_) + 2 * sizeof(int) + sizeof(seed_), "bad RNG state size ",
           s.size());
  const uint8_t* p = s.data();
  std::memcpy(mt_, p, sizeof(mt_));
  p += sizeof(mt_);
  std::memcpy(&left_, p, sizeof(int));
  p += sizeof(int);
  std::memcpy(&next_, p, sizeof(int));
  p += sizeof(int);
  std::memcpy(&seed_, p, sizeof(seed_));
  has_next_normal_ = has_next_float_normal_ = false;
}

}  // namespace scratchgpt
