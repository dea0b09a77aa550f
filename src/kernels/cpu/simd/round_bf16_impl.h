// round_bf16_impl.h: floats rounded to bf16 as ref::bf16_from_float does (nearest even; a NaN
// stays a quiet NaN; past bf16's largest finite value, infinity), eight lanes in AVX2 registers.
// Included by gemm_bf16_impl.h (packing pairs) and vec_avx2.h / vec_avx512.h (Vec::round_bf16,
// flash attention's bf16 path) inside their `SG_TARGET_BEGIN` regions, so each copy is compiled
// for its instruction set. Needs <immintrin.h> and <cstdint>. Readable twin: ref/bf16.h.
#pragma once

// x rounded to bf16, in the top half of each 32-bit lane (the bottom half is left as the
// addition leaves it: mask it, or shift the top down).
inline __m256i round_bf16_8(__m256 x) {
  const __m256i u = _mm256_castps_si256(x);
  const __m256i lsb = _mm256_and_si256(_mm256_srli_epi32(u, 16), _mm256_set1_epi32(1));
  const __m256i r = _mm256_add_epi32(u, _mm256_add_epi32(lsb, _mm256_set1_epi32(0x7fff)));
  const __m256i nan = _mm256_cmpgt_epi32(_mm256_and_si256(u, _mm256_set1_epi32(0x7fffffff)),
                                         _mm256_set1_epi32(0x7f800000));
  return _mm256_blendv_epi8(r, _mm256_or_si256(u, _mm256_set1_epi32(0x00400000)), nan);
}

// x rounded to the nearest bf16 value, kept as a float (its low 16 bits zero).
inline __m256 round_bf16_ps8(__m256 x) {
  return _mm256_castsi256_ps(
      _mm256_and_si256(round_bf16_8(x), _mm256_set1_epi32(static_cast<int>(0xffff0000u))));
}
