// rng_avx2.cpp: the AVX2 versions of rng_kernels.h (8 words or 8 floats per instruction), built
// for AVX2+FMA whatever the build's -march; Rng calls them only when the CPU has both.
// Leaves out: AVX-512 (the twist is memory-light; 8 lanes already leave the stores as the limit).
// Readable twins: the *_scalar functions in rng.cpp (rng_bulk_test checks that they agree).
// Headers come before the target pragma so no shared inline code gets AVX2 bodies.
#include <immintrin.h>

#include <cstdint>

#include "core/rng_kernels.h"
#include "core/simd_target.h"

SG_TARGET_BEGIN("avx2,fma")

namespace scratchgpt::rng_detail {

namespace {

// 8 lanes of mt[j + off] ^ mix(mt[j], mt[j + 1]) for j .. j + 7, stored to mt[j ..]. All loads
// happen before the store, and the caller keeps [j + 1, j + 8] not yet twisted and
// [j + off, j + off + 8) in the right generation (old when off = 397, new when off = -227).
inline void twist8(uint32_t* mt, int j, int off) {
  const __m256i upper = _mm256_set1_epi32(static_cast<int>(0x80000000u));
  const __m256i lower = _mm256_set1_epi32(0x7fffffff);
  const __m256i matrix_a = _mm256_set1_epi32(static_cast<int>(0x9908b0dfu));
  const __m256i u = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(mt + j));
  const __m256i v = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(mt + j + 1));
  const __m256i w = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(mt + j + off));
  const __m256i y = _mm256_or_si256(_mm256_and_si256(u, upper), _mm256_and_si256(v, lower));
  // (v & 1) ? matrix_a : 0, as the low bit shifted to the top and smeared down.
  const __m256i odd = _mm256_srai_epi32(_mm256_slli_epi32(v, 31), 31);
  const __m256i r = _mm256_xor_si256(_mm256_xor_si256(w, _mm256_srli_epi32(y, 1)),
                                     _mm256_and_si256(odd, matrix_a));
  _mm256_storeu_si256(reinterpret_cast<__m256i*>(mt + j), r);
}

inline uint32_t mix(uint32_t u, uint32_t v) {
  return (((u & 0x80000000u) | (v & 0x7fffffffu)) >> 1) ^ ((v & 1u) ? 0x9908b0dfu : 0u);
}

}  // namespace

void mt_twist_avx2(uint32_t* mt) {
  constexpr int kSplit = kMtN - kMtM;  // 227: where mt[j + 397] wraps around to mt[j - 227]
  int j = 0;
  // j < 227 reads old mt[j + 397]; j + 8 <= 227 keeps mt[j + 8] (the last v) untwisted.
  for (; j + 8 <= kSplit; j += 8) twist8(mt, j, kMtM);
  for (; j < kSplit; ++j) mt[j] = mt[j + kMtM] ^ mix(mt[j], mt[j + 1]);
  // 227 <= j < 623 reads new mt[j - 227] (at least 220 words back, so already stored);
  // j + 8 <= 623 keeps mt[623] untwisted for the last v.
  for (; j + 8 <= kMtN - 1; j += 8) twist8(mt, j, kMtM - kMtN);
  for (; j < kMtN - 1; ++j) mt[j] = mt[j + kMtM - kMtN] ^ mix(mt[j], mt[j + 1]);
  mt[kMtN - 1] = mt[kMtM - 1] ^ mix(mt[kMtN - 1], mt[0]);
}

void mt_temper_avx2(uint32_t* out, const uint32_t* state, int64_t n) {
  const __m256i b = _mm256_set1_epi32(static_cast<int>(0x9d2c5680u));
  const __m256i c = _mm256_set1_epi32(static_cast<int>(0xefc60000u));
  int64_t i = 0;
  for (; i + 8 <= n; i += 8) {
    __m256i y = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(state + i));
    y = _mm256_xor_si256(y, _mm256_srli_epi32(y, 11));
    y = _mm256_xor_si256(y, _mm256_and_si256(_mm256_slli_epi32(y, 7), b));
    y = _mm256_xor_si256(y, _mm256_and_si256(_mm256_slli_epi32(y, 15), c));
    y = _mm256_xor_si256(y, _mm256_srli_epi32(y, 18));
    _mm256_storeu_si256(reinterpret_cast<__m256i*>(out + i), y);
  }
  mt_temper_scalar(out + i, state + i, n - i);
}

void bernoulli53_avx2(float* out, const uint32_t* words, int64_t n, uint64_t threshold, float one) {
  const __m256i mask53 = _mm256_set1_epi64x(static_cast<int64_t>((uint64_t{1} << 53) - 1));
  // threshold <= 2^53 and x < 2^53: the signed 64-bit compare is the unsigned one.
  const __m256i t = _mm256_set1_epi64x(static_cast<int64_t>(threshold));
  const __m256 value = _mm256_set1_ps(one);
  // 4 elements from 8 words: in memory hi, lo, so a 64-bit lane reads hi | lo << 32; swapping
  // the 32-bit halves gives (hi << 32) | lo. Result: all ones in each 64-bit lane where x < t.
  auto below = [&](const uint32_t* w) {
    __m256i x = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(w));
    x = _mm256_and_si256(_mm256_shuffle_epi32(x, _MM_SHUFFLE(2, 3, 0, 1)), mask53);
    return _mm256_cmpgt_epi64(t, x);
  };
  int64_t i = 0;
  for (; i + 8 <= n; i += 8) {
    const __m256i lo4 = below(words + 2 * i);      // elements i .. i + 3
    const __m256i hi4 = below(words + 2 * i + 8);  // elements i + 4 .. i + 7
    // Low 32 bits of each 64-bit result: 32-bit order 0 1 4 5 | 2 3 6 7, then 64-bit pairs
    // reordered (0 1)(2 3)(4 5)(6 7).
    const __m256 packed = _mm256_shuffle_ps(_mm256_castsi256_ps(lo4), _mm256_castsi256_ps(hi4),
                                            _MM_SHUFFLE(2, 0, 2, 0));
    const __m256 keep = _mm256_castsi256_ps(
        _mm256_permute4x64_epi64(_mm256_castps_si256(packed), _MM_SHUFFLE(3, 1, 2, 0)));
    _mm256_storeu_ps(out + i, _mm256_and_ps(keep, value));
  }
  bernoulli53_scalar(out + i, words + 2 * i, n - i, threshold, one);
}

void uniform24_avx2(float* out, const uint32_t* words, int64_t n, float from, float to) {
  const __m256i mask24 = _mm256_set1_epi32((1 << 24) - 1);
  const __m256 scale = _mm256_set1_ps(1.0f / (1u << 24));
  const __m256 range = _mm256_set1_ps(to - from);
  const __m256 base = _mm256_set1_ps(from);
  int64_t i = 0;
  for (; i + 8 <= n; i += 8) {
    const __m256i w = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(words + i));
    // 24 bits convert exactly; times 2^-24 is exact; then one rounding in the FMA.
    const __m256 x = _mm256_mul_ps(_mm256_cvtepi32_ps(_mm256_and_si256(w, mask24)), scale);
    _mm256_storeu_ps(out + i, _mm256_fmadd_ps(x, range, base));
  }
  uniform24_scalar(out + i, words + i, n - i, from, to);
}

bool any_may_reach_avx2(const float* p, const double* u, int64_t m, double cut) {
  const __m256d vcut = _mm256_set1_pd(cut), zero = _mm256_setzero_pd();
  __m256d any = zero;
  int64_t i = 0;
  for (; i + 4 <= m; i += 4) {
    const __m256d ui = _mm256_loadu_pd(u + i);
    const __m256d pi = _mm256_cvtps_pd(_mm_loadu_ps(p + i));  // exact
    any = _mm256_or_pd(any, _mm256_or_pd(_mm256_cmp_pd(ui, zero, _CMP_EQ_OQ),
                                         _mm256_cmp_pd(pi, _mm256_mul_pd(vcut, ui), _CMP_GT_OQ)));
  }
  return _mm256_movemask_pd(any) != 0 || any_may_reach_scalar(p + i, u + i, m - i, cut);
}

}  // namespace scratchgpt::rng_detail

SG_TARGET_END
