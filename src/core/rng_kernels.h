// rng_kernels.h: the block kernels behind Rng's bulk draws: the mt19937 twist, the tempering of a
// run of state words, and the word -> float transforms of uniform and bernoulli, each as a
// readable scalar twin (rng.cpp) and an AVX2 version (rng_avx2.cpp) giving the same bits.
// Leaves out: the generator's position bookkeeping (Rng::fill_raw) and the choice of path (Rng).
#pragma once

#include <cmath>
#include <cstdint>

namespace scratchgpt::rng_detail {

constexpr int kMtN = 624;  // mt19937 state words
constexpr int kMtM = 397;  // the twist's middle offset

// Regenerates the state in place: mt[j] = mt[j + 397] ^ mix(mt[j], mt[j + 1]), indices mod 624,
// in increasing j (so mt[j - 227] is already new for j >= 227).
void mt_twist_scalar(uint32_t* mt);
void mt_twist_avx2(uint32_t* mt);

// out[i] = temper(state[i]) for i < n: the raw draws random() returns.
void mt_temper_scalar(uint32_t* out, const uint32_t* state, int64_t n);
void mt_temper_avx2(uint32_t* out, const uint32_t* state, int64_t n);

// The 53-bit integer behind a double uniform: random64()'s low 53 bits, hi the first draw.
inline uint64_t bits53(uint32_t hi, uint32_t lo) {
  return ((uint64_t{hi} << 32) | lo) & ((uint64_t{1} << 53) - 1);
}

// Bernoulli with a double p from two raw draws per element (hi = words[2i], lo = words[2i+1]):
// uniform_double() < p  <=>  x < threshold, x = ((hi << 32) | lo) & (2^53 - 1),
// threshold = ceil(p * 2^53). out[i] = x < threshold ? one : 0.
void bernoulli53_scalar(float* out, const uint32_t* words, int64_t n, uint64_t threshold,
                        float one);
void bernoulli53_avx2(float* out, const uint32_t* words, int64_t n, uint64_t threshold, float one);

// One float uniform in [from, to) per raw draw: fma((w & (2^24 - 1)) * 2^-24, to - from, from).
void uniform24_scalar(float* out, const uint32_t* words, int64_t n, float from, float to);
void uniform24_avx2(float* out, const uint32_t* words, int64_t n, float from, float to);

// exponential_(lambda)'s value from one 53-bit uniform u: -1/lambda * log(1 - u), in double, then
// rounded to float (1 - u is exact for such a u).
inline float exponential_value(double u, double lambda) {
  return static_cast<float>(-1.0 / lambda * std::log(1.0 - u));
}

// torch.multinomial(p, 1) without replacement, given the row's uniforms u (exponential_(1)'s, one
// per category in draw order): with q[i] = exponential_value(u[i], 1), the index of the first NaN
// of the float quotients p[i] / q[i], else of the first of the largest. The readable twin
// computes every q (a log per category: most of a sampled token's time at V = 50257).
int64_t argmax_p_over_exp_ref(const float* p, const double* u, int64_t n);
// The same index for p >= 0 (as multinomial checks), with a log only where the quotient can
// matter. For u > 0, -log(1 - u) >= u and the log's and the float rounding lose less than 2e-7
// of it, so the exact quotient p / q is below p / (u (1 - 1e-6)). With best the largest quotient
// so far and cut = best * (1 - 1e-6) in double (its two roundings are far inside the margin),
// p <= cut * u makes p / q < best (best > 0) or p = 0 (best = 0), and the float quotient, rounded
// to nearest, cannot pass best: the scan computes only the categories with u = 0 (q = -0: -inf
// or NaN) or p > cut * u, in order, block by block; a block where any_may_reach finds none is
// skipped whole (avx2: with its AVX2 version).
int64_t argmax_p_over_exp(const float* p, const double* u, int64_t n, bool avx2);

// Whether category (p, u) may pass the best quotient so far (argmax_p_over_exp's test, in double).
inline bool may_reach(float p, double u, double cut) {
  return u == 0.0 || static_cast<double>(p) > cut * u;
}
// Whether any of m categories may: may_reach for one of them.
bool any_may_reach_scalar(const float* p, const double* u, int64_t m, double cut);
bool any_may_reach_avx2(const float* p, const double* u, int64_t m, double cut);

}  // namespace scratchgpt::rng_detail
