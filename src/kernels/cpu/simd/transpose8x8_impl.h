// transpose8x8_impl.h: an 8 x 8 float transpose in AVX registers, for packing a transposed operand
// (the GEMM's B = W^T in the forward). Included by gemm_avx2.cpp and gemm_avx512.cpp inside their
// `SG_TARGET_BEGIN` regions (like gemm_impl.h), so each copy is compiled for its instruction set.
// Needs <immintrin.h> and <cstdint>. Readable twin: the scalar loop in pack_b_panel.
#pragma once

// dst[c * ds + r] = src[r * ss + c] for r, c < 8.
inline void transpose8x8(const float* src, int64_t ss, float* dst, int64_t ds) {
  __m256 r[8];
  for (int i = 0; i < 8; ++i) r[i] = _mm256_loadu_ps(src + i * ss);
  // Interleave pairs of rows, then pairs of pairs, then swap 128-bit halves.
  __m256 t[8];
  for (int i = 0; i < 8; i += 2) {
    t[i] = _mm256_unpacklo_ps(r[i], r[i + 1]);      // r_i0 r_j0 r_i1 r_j1 | r_i4 r_j4 r_i5 r_j5
    t[i + 1] = _mm256_unpackhi_ps(r[i], r[i + 1]);  // r_i2 r_j2 r_i3 r_j3 | r_i6 r_j6 r_i7 r_j7
  }
  __m256 u[8];
  for (int i = 0; i < 8; i += 4) {
    u[i] = _mm256_shuffle_ps(t[i], t[i + 2], 0x44);      // column 0 (and 4) of four rows
    u[i + 1] = _mm256_shuffle_ps(t[i], t[i + 2], 0xEE);  // column 1 (and 5)
    u[i + 2] = _mm256_shuffle_ps(t[i + 1], t[i + 3], 0x44);  // column 2 (and 6)
    u[i + 3] = _mm256_shuffle_ps(t[i + 1], t[i + 3], 0xEE);  // column 3 (and 7)
  }
  for (int c = 0; c < 4; ++c) {
    _mm256_storeu_ps(dst + c * ds, _mm256_permute2f128_ps(u[c], u[c + 4], 0x20));
    _mm256_storeu_ps(dst + (c + 4) * ds, _mm256_permute2f128_ps(u[c], u[c + 4], 0x31));
  }
}
