// vec_avx2.h: VecAvx2, eight floats in a ymm register, the "vector" that the templated kernels
// (gemm_impl.h, matvec_impl.h, flash_attention_impl.h, tile_product_impl.h, gelu_impl.h, the row
// kernels: layernorm, softmax, crossentropy, adamw, attention's rows) are written against.
// Each kernel uses the operations it needs; VecAvx512 (vec_avx512.h) has the same names, and each
// kernel's portable path its own plain-float twin. Below the struct's helpers: exp8, the
// Cephes-style range reduction x = n ln2 + r with a degree-6 polynomial for e^r (about 1 ulp;
// inputs below -87 give exactly 0, so -inf masks become exact zeros), and fixed-order reductions.
// Not standalone: include after <immintrin.h> and <cstdint>, inside `SG_TARGET_BEGIN("avx2,fma")`
// and an anonymous namespace, so these bodies are compiled for AVX2 and stay private to that file.
#pragma once

#include "kernels/cpu/simd/round_bf16_impl.h"
#include "kernels/cpu/simd/transpose8x8_impl.h"

inline __m256 exp8(__m256 x) {
  const __m256 lo = _mm256_set1_ps(-87.0f);
  const __m256 underflow = _mm256_cmp_ps(x, lo, _CMP_LT_OQ);  // also true for -inf
  x = _mm256_min_ps(_mm256_max_ps(x, lo), _mm256_set1_ps(88.3762626647949f));
  const __m256 fx = _mm256_round_ps(_mm256_mul_ps(x, _mm256_set1_ps(1.44269504088896341f)),
                                    _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC);
  x = _mm256_fnmadd_ps(fx, _mm256_set1_ps(0.693359375f), x);
  x = _mm256_fnmadd_ps(fx, _mm256_set1_ps(-2.12194440e-4f), x);
  __m256 p = _mm256_set1_ps(1.9875691500e-4f);
  p = _mm256_fmadd_ps(p, x, _mm256_set1_ps(1.3981999507e-3f));
  p = _mm256_fmadd_ps(p, x, _mm256_set1_ps(8.3334519073e-3f));
  p = _mm256_fmadd_ps(p, x, _mm256_set1_ps(4.1665795894e-2f));
  p = _mm256_fmadd_ps(p, x, _mm256_set1_ps(1.6666665459e-1f));
  p = _mm256_fmadd_ps(p, x, _mm256_set1_ps(5.0000001201e-1f));
  const __m256 x2 = _mm256_mul_ps(x, x);
  p = _mm256_fmadd_ps(p, x2, _mm256_add_ps(x, _mm256_set1_ps(1.0f)));
  const __m256i n = _mm256_add_epi32(_mm256_cvtps_epi32(fx), _mm256_set1_epi32(127));
  const __m256 pow2n = _mm256_castsi256_ps(_mm256_slli_epi32(n, 23));
  return _mm256_andnot_ps(underflow, _mm256_mul_ps(p, pow2n));
}

inline float hsum8(__m256 v) {
  __m128 s = _mm_add_ps(_mm256_castps256_ps128(v), _mm256_extractf128_ps(v, 1));
  s = _mm_add_ps(s, _mm_movehl_ps(s, s));
  s = _mm_add_ss(s, _mm_movehdup_ps(s));
  return _mm_cvtss_f32(s);
}

inline float hmax8(__m256 v) {
  __m128 s = _mm_max_ps(_mm256_castps256_ps128(v), _mm256_extractf128_ps(v, 1));
  s = _mm_max_ps(s, _mm_movehl_ps(s, s));
  s = _mm_max_ss(s, _mm_movehdup_ps(s));
  return _mm_cvtss_f32(s);
}

// Mask with the first n (0..8) lanes set, for loads and stores of a row's tail.
inline __m256i tail_mask8(int n) {
  const __m256i idx = _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7);
  return _mm256_cmpgt_epi32(_mm256_set1_epi32(n), idx);
}

struct VecAvx2 {
  using T = __m256;
  static constexpr int kW = 8;      // lanes
  static constexpr int kRegs = 16;  // architectural vector registers (ymm0-15)
  static T zero() { return _mm256_setzero_ps(); }
  static T set1(float x) { return _mm256_set1_ps(x); }
  static T load(const float* p) { return _mm256_loadu_ps(p); }
  // The first rem (< kW) floats of p, the other lanes zero; nothing past p + rem is read.
  static T load_tail(const float* p, int rem) { return _mm256_maskload_ps(p, tail_mask8(rem)); }
  // The first rem (< kW) floats of p, the other lanes `fill`; nothing past p + rem is read.
  static T load_tail_or(const float* p, int rem, float fill) {
    const __m256i m = tail_mask8(rem);
    return _mm256_blendv_ps(_mm256_set1_ps(fill), _mm256_maskload_ps(p, m), _mm256_castsi256_ps(m));
  }
  // kW bfloat16 values (the top halves of floats) widened to floats: exact.
  static T load_bf16(const uint16_t* p) {
    const __m256i w = _mm256_cvtepu16_epi32(_mm_loadu_si128(reinterpret_cast<const __m128i*>(p)));
    return _mm256_castsi256_ps(_mm256_slli_epi32(w, 16));
  }
  static void store(float* p, T x) { _mm256_storeu_ps(p, x); }
  // A non-temporal store (p aligned to 32 bytes): past the caches, without first reading the
  // line in; an _mm_sfence() must follow before another thread reads it.
  static void stream(float* p, T x) { _mm256_stream_ps(p, x); }
  // The first rem (< kW) lanes of x to p; nothing past p + rem is written.
  static void store_tail(float* p, T x, int rem) { _mm256_maskstore_ps(p, tail_mask8(rem), x); }
  static T bcast(const float* p) { return _mm256_broadcast_ss(p); }
  static T fma(T a, T b, T c) { return _mm256_fmadd_ps(a, b, c); }  // a * b + c, one rounding
  static T fnma(T a, T b, T c) { return _mm256_fnmadd_ps(a, b, c); }  // c - a * b, one rounding
  static T add(T a, T b) { return _mm256_add_ps(a, b); }
  static T sub(T a, T b) { return _mm256_sub_ps(a, b); }
  static T mul(T a, T b) { return _mm256_mul_ps(a, b); }
  static T div(T a, T b) { return _mm256_div_ps(a, b); }
  static T max(T a, T b) { return _mm256_max_ps(a, b); }
  static T sqrt(T x) { return _mm256_sqrt_ps(x); }  // exact-rounded, as std::sqrt
  static T abs(T x) { return _mm256_andnot_ps(_mm256_set1_ps(-0.0f), x); }
  // Lanes where x < 0 take a, the others b.
  static T select_neg(T x, T a, T b) {
    return _mm256_blendv_ps(b, a, _mm256_cmp_ps(x, _mm256_setzero_ps(), _CMP_LT_OQ));
  }
  static T exp(T x) { return exp8(x); }
  // x rounded to the nearest bf16 value (ties to even), kept as a float: ref::round_bf16.
  static T round_bf16(T x) { return round_bf16_ps8(x); }
  // ((l0+l4) + (l2+l6)) + ((l1+l5) + (l3+l7)): a fixed order, so results do not depend on threads.
  static float hsum(T x) { return hsum8(x); }
  static float hmax(T x) { return hmax8(x); }
  // dst[c * ds + r] = src[r * ss + c] for r, c < 8 (transpose8x8_impl.h).
  static constexpr bool kTranspose8 = true;
  static void transpose8(const float* src, int64_t ss, float* dst, int64_t ds) {
    transpose8x8(src, ss, dst, ds);
  }
};
