// vec_avx512.h: VecAvx512, sixteen floats in a zmm register, with the same operations as
// VecAvx2 (vec_avx2.h) for the templated kernels.
// Not standalone: include after <immintrin.h> and <cstdint>, inside
// `SG_TARGET_BEGIN("avx512f,avx512vl,avx2,fma")` and an anonymous namespace. GCC 12 flags the
// _mm512_undefined_ps() inside max, min, roundscale, cvtps_epi32 and the reductions as "maybe
// uninitialized", a false positive of the intrinsics header: files that include this one turn
// -Wmaybe-uninitialized (and -Wuninitialized) off before any include.
#pragma once

#include "kernels/cpu/simd/transpose8x8_impl.h"

// e^x as exp8 in vec_avx2.h (x = n ln2 + r, degree-6 polynomial for e^r), 16 lanes; -inf and
// anything below -87 give exactly 0.
inline __m512 exp16(__m512 x) {
  const __m512 lo = _mm512_set1_ps(-87.0f);
  const __mmask16 underflow = _mm512_cmp_ps_mask(x, lo, _CMP_LT_OQ);
  x = _mm512_min_ps(_mm512_max_ps(x, lo), _mm512_set1_ps(88.3762626647949f));
  const __m512 fx = _mm512_roundscale_ps(_mm512_mul_ps(x, _mm512_set1_ps(1.44269504088896341f)),
                                         _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC);
  x = _mm512_fnmadd_ps(fx, _mm512_set1_ps(0.693359375f), x);
  x = _mm512_fnmadd_ps(fx, _mm512_set1_ps(-2.12194440e-4f), x);
  __m512 p = _mm512_set1_ps(1.9875691500e-4f);
  p = _mm512_fmadd_ps(p, x, _mm512_set1_ps(1.3981999507e-3f));
  p = _mm512_fmadd_ps(p, x, _mm512_set1_ps(8.3334519073e-3f));
  p = _mm512_fmadd_ps(p, x, _mm512_set1_ps(4.1665795894e-2f));
  p = _mm512_fmadd_ps(p, x, _mm512_set1_ps(1.6666665459e-1f));
  p = _mm512_fmadd_ps(p, x, _mm512_set1_ps(5.0000001201e-1f));
  const __m512 x2 = _mm512_mul_ps(x, x);
  p = _mm512_fmadd_ps(p, x2, _mm512_add_ps(x, _mm512_set1_ps(1.0f)));
  // p 2^fx in one instruction (exact, like multiplying by the power of two).
  return _mm512_maskz_scalef_ps(static_cast<__mmask16>(~underflow), p, fx);
}

struct VecAvx512 {
  using T = __m512;
  static constexpr int kW = 16;     // lanes
  static constexpr int kRegs = 32;  // architectural vector registers (zmm0-31)
  static T zero() { return _mm512_setzero_ps(); }
  static T set1(float x) { return _mm512_set1_ps(x); }
  static T load(const float* p) { return _mm512_loadu_ps(p); }
  // The first rem (< kW) floats of p, the other lanes zero; nothing past p + rem is read.
  // kW bfloat16 values (the top halves of floats) widened to floats: exact.
  static T load_bf16(const uint16_t* p) {
    const __m512i w =
        _mm512_cvtepu16_epi32(_mm256_loadu_si256(reinterpret_cast<const __m256i*>(p)));
    return _mm512_castsi512_ps(_mm512_slli_epi32(w, 16));
  }
  static T load_tail(const float* p, int rem) {
    return _mm512_maskz_loadu_ps(static_cast<__mmask16>((1u << rem) - 1u), p);
  }
  // The first rem (< kW) floats of p, the other lanes `fill`; nothing past p + rem is read.
  static T load_tail_or(const float* p, int rem, float fill) {
    return _mm512_mask_loadu_ps(_mm512_set1_ps(fill), static_cast<__mmask16>((1u << rem) - 1u), p);
  }
  static void store(float* p, T x) { _mm512_storeu_ps(p, x); }
  // A non-temporal store (p aligned to 64 bytes): past the caches, without first reading the
  // line in; an _mm_sfence() must follow before another thread reads it.
  static void stream(float* p, T x) { _mm512_stream_ps(p, x); }
  // The first rem (< kW) lanes of x to p; nothing past p + rem is written.
  static void store_tail(float* p, T x, int rem) {
    _mm512_mask_storeu_ps(p, static_cast<__mmask16>((1u << rem) - 1u), x);
  }
  static T bcast(const float* p) { return _mm512_set1_ps(*p); }
  static T fma(T a, T b, T c) { return _mm512_fmadd_ps(a, b, c); }  // a * b + c, one rounding
  static T fnma(T a, T b, T c) { return _mm512_fnmadd_ps(a, b, c); }  // c - a * b, one rounding
  static T add(T a, T b) { return _mm512_add_ps(a, b); }
  static T sub(T a, T b) { return _mm512_sub_ps(a, b); }
  static T mul(T a, T b) { return _mm512_mul_ps(a, b); }
  static T div(T a, T b) { return _mm512_div_ps(a, b); }
  static T max(T a, T b) { return _mm512_max_ps(a, b); }
  static T sqrt(T x) { return _mm512_sqrt_ps(x); }  // exact-rounded, as std::sqrt
  static T abs(T x) { return _mm512_abs_ps(x); }
  // Lanes where x < 0 take a, the others b.
  static T select_neg(T x, T a, T b) {
    return _mm512_mask_blend_ps(_mm512_cmp_ps_mask(x, _mm512_setzero_ps(), _CMP_LT_OQ), b, a);
  }
  static T exp(T x) { return exp16(x); }
  // x rounded to the nearest bf16 value (ties to even; a NaN stays a quiet NaN), kept as a
  // float: ref::round_bf16, round_bf16_impl.h's steps on sixteen lanes.
  static T round_bf16(T x) {
    const __m512i u = _mm512_castps_si512(x);
    const __m512i lsb = _mm512_and_si512(_mm512_srli_epi32(u, 16), _mm512_set1_epi32(1));
    const __m512i r = _mm512_add_epi32(u, _mm512_add_epi32(lsb, _mm512_set1_epi32(0x7fff)));
    const __mmask16 nan = _mm512_cmpgt_epi32_mask(
        _mm512_and_si512(u, _mm512_set1_epi32(0x7fffffff)), _mm512_set1_epi32(0x7f800000));
    const __m512i v =
        _mm512_mask_mov_epi32(r, nan, _mm512_or_si512(u, _mm512_set1_epi32(0x00400000)));
    return _mm512_castsi512_ps(
        _mm512_and_si512(v, _mm512_set1_epi32(static_cast<int>(0xffff0000u))));
  }
  // Halves added pairwise (16 -> 8 -> 4 -> 2 -> 1 lanes), a fixed order.
  static float hsum(T x) { return _mm512_reduce_add_ps(x); }
  static float hmax(T x) { return _mm512_reduce_max_ps(x); }
  // dst[c * ds + r] = src[r * ss + c] for r, c < 8 (transpose8x8_impl.h, AVX2 registers).
  static constexpr bool kTranspose8 = true;
  static void transpose8(const float* src, int64_t ss, float* dst, int64_t ds) {
    transpose8x8(src, ss, dst, ds);
  }
};
