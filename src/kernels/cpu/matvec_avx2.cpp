// matvec_avx2.cpp: the matvec row kernel of matvec_impl.h compiled for AVX2+FMA (8 lanes, up to 8
// accumulators per row group), whatever the build's -march; only called when the CPU has both.
// Every header is included before the target pragma so no shared inline code gets AVX2 bodies.
#include <immintrin.h>

#include <cstdint>

#include "kernels/cpu/matvec.h"

#pragma GCC push_options
#pragma GCC target("avx2,fma")

namespace scratchgpt::cpu::detail {
namespace {

struct VecAvx2 {
  using T = __m256;
  static constexpr int kW = 8;
  static constexpr int kAccRegs = 8;
  static T zero() { return _mm256_setzero_ps(); }
  static T load(const float* p) { return _mm256_loadu_ps(p); }
  static T load_tail(const float* p, int rem) {
    const __m256i lane = _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7);
    return _mm256_maskload_ps(p, _mm256_cmpgt_epi32(_mm256_set1_epi32(rem), lane));
  }
  static T fma(T a, T b, T c) { return _mm256_fmadd_ps(a, b, c); }
  static T add(T a, T b) { return _mm256_add_ps(a, b); }
  // ((l0+l4) + (l2+l6)) + ((l1+l5) + (l3+l7))
  static float hsum(T a) {
    __m128 s = _mm_add_ps(_mm256_castps256_ps128(a), _mm256_extractf128_ps(a, 1));
    s = _mm_add_ps(s, _mm_movehl_ps(s, s));
    s = _mm_add_ss(s, _mm_movehdup_ps(s));
    return _mm_cvtss_f32(s);
  }
};

#include "kernels/cpu/matvec_impl.h"

}  // namespace

void matvec_rows_avx2(float* out, const float* inp, const float* weight, int64_t ldw,
                      const float* bias, int N, int C, int OC, int o_begin, int o_end) {
  matvec_rows<VecAvx2>(out, inp, weight, ldw, bias, N, C, OC, o_begin, o_end);
}

}  // namespace scratchgpt::cpu::detail

#pragma GCC pop_options
