// vec_avx2.h: VecAvx2, eight floats in a ymm register, the "vector" that the templated kernels
// (gemm_impl.h, matvec_impl.h, flash_attention_impl.h, gelu_impl.h) are written against. Each kernel uses the
// operations it needs; VecAvx512 (vec_avx512.h) has the same names, and each kernel's scalar file
// its own plain-float twin.
// Not standalone: include after <immintrin.h> and <cstdint>, inside `SG_TARGET_BEGIN("avx2,fma")`
// and an anonymous namespace, so these bodies are compiled for AVX2 and stay private to that file.
#pragma once

#include "kernels/cpu/simd/transpose8x8_impl.h"
#include "kernels/cpu/simd/vec_math_avx2.h"

struct VecAvx2 {
  using T = __m256;
  static constexpr int kW = 8;      // lanes
  static constexpr int kRegs = 16;  // architectural vector registers (ymm0-15)
  static T zero() { return _mm256_setzero_ps(); }
  static T set1(float x) { return _mm256_set1_ps(x); }
  static T load(const float* p) { return _mm256_loadu_ps(p); }
  // The first rem (< kW) floats of p, the other lanes zero; nothing past p + rem is read.
  static T load_tail(const float* p, int rem) { return _mm256_maskload_ps(p, tail_mask8(rem)); }
  static void store(float* p, T x) { _mm256_storeu_ps(p, x); }
  static T bcast(const float* p) { return _mm256_broadcast_ss(p); }
  static T fma(T a, T b, T c) { return _mm256_fmadd_ps(a, b, c); }  // a * b + c, one rounding
  static T fnma(T a, T b, T c) { return _mm256_fnmadd_ps(a, b, c); }  // c - a * b, one rounding
  static T add(T a, T b) { return _mm256_add_ps(a, b); }
  static T sub(T a, T b) { return _mm256_sub_ps(a, b); }
  static T mul(T a, T b) { return _mm256_mul_ps(a, b); }
  static T div(T a, T b) { return _mm256_div_ps(a, b); }
  static T max(T a, T b) { return _mm256_max_ps(a, b); }
  static T abs(T x) { return _mm256_andnot_ps(_mm256_set1_ps(-0.0f), x); }
  // Lanes where x < 0 take a, the others b.
  static T select_neg(T x, T a, T b) {
    return _mm256_blendv_ps(b, a, _mm256_cmp_ps(x, _mm256_setzero_ps(), _CMP_LT_OQ));
  }
  static T exp(T x) { return exp8(x); }
  // ((l0+l4) + (l2+l6)) + ((l1+l5) + (l3+l7)): a fixed order, so results do not depend on threads.
  static float hsum(T x) { return hsum8(x); }
  static float hmax(T x) { return hmax8(x); }
  // dst[c * ds + r] = src[r * ss + c] for r, c < 8 (transpose8x8_impl.h).
  static constexpr bool kTranspose8 = true;
  static void transpose8(const float* src, int64_t ss, float* dst, int64_t ds) {
    transpose8x8(src, ss, dst, ds);
  }
};
