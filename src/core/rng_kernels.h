// rng_kernels.h: the block kernels behind Rng's bulk draws: the mt19937 twist, the tempering of a
// run of state words, and the word -> float transforms of uniform and bernoulli, each as a
// readable scalar twin (rng.cpp) and an AVX2 version (rng_avx2.cpp) giving the same bits.
// Leaves out: the generator's position bookkeeping (Rng::fill_raw) and the choice of path (Rng).
#pragma once

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

// Bernoulli with a double p from two raw draws per element (hi = words[2i], lo = words[2i+1]):
// uniform_double() < p  <=>  x < threshold, x = ((hi << 32) | lo) & (2^53 - 1),
// threshold = ceil(p * 2^53). out[i] = x < threshold ? one : 0.
void bernoulli53_scalar(float* out, const uint32_t* words, int64_t n, uint64_t threshold,
                        float one);
void bernoulli53_avx2(float* out, const uint32_t* words, int64_t n, uint64_t threshold, float one);

// One float uniform in [from, to) per raw draw: fma((w & (2^24 - 1)) * 2^-24, to - from, from).
void uniform24_scalar(float* out, const uint32_t* words, int64_t n, float from, float to);
void uniform24_avx2(float* out, const uint32_t* words, int64_t n, float from, float to);

}  // namespace scratchgpt::rng_detail
