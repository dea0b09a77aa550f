// gemm_avx2.cpp: the GEMM of gemm_impl.h compiled for AVX2+FMA (6 x 16 micro-kernel: 12 ymm
// accumulators), whatever the build's -march; only called when the CPU has AVX2 and FMA.
// Every header is included before the target pragma so no shared inline code gets AVX2 bodies.
#include <immintrin.h>

#include <cstdint>

#include "kernels/cpu/gemm.h"

#pragma GCC push_options
#pragma GCC target("avx2,fma")

namespace scratchgpt::cpu::detail {
namespace {

#include "kernels/cpu/transpose8x8_impl.h"

struct VecAvx2 {
  using T = __m256;
  static constexpr int kW = 8;
  static T zero() { return _mm256_setzero_ps(); }
  static T load(const float* p) { return _mm256_loadu_ps(p); }
  static void store(float* p, T x) { _mm256_storeu_ps(p, x); }
  static T bcast(const float* p) { return _mm256_broadcast_ss(p); }
  static T fma(T a, T b, T c) { return _mm256_fmadd_ps(a, b, c); }
  static T add(T a, T b) { return _mm256_add_ps(a, b); }
  // dst[c * ds + r] = src[r * ss + c] for r, c < 8 (transpose8x8_impl.h).
  static constexpr bool kTranspose8 = true;
  static void transpose8(const float* src, int64_t ss, float* dst, int64_t ds) {
    transpose8x8(src, ss, dst, ds);
  }
};

#include "kernels/cpu/gemm_impl.h"

}  // namespace

void gemm_avx2(const GemmArgs& g, ThreadPool& pool) {
  gemm_blocked<VecAvx2, 6, 2, 256, 768>(g, pool);
}

}  // namespace scratchgpt::cpu::detail

#pragma GCC pop_options
