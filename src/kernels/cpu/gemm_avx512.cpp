// gemm_avx512.cpp: the GEMM of gemm_impl.h compiled for AVX-512F (12 x 32 micro-kernel: 24 zmm
// accumulators), whatever the build's -march; only called when the CPU has AVX-512F and VL.
// Every header is included before the target pragma so no shared inline code gets AVX-512 bodies.
#include <immintrin.h>

#include <cstdint>

#include "kernels/cpu/gemm.h"

#pragma GCC push_options
#pragma GCC target("avx512f,avx512vl,avx2,fma")

namespace scratchgpt::cpu::detail {
namespace {

#include "kernels/cpu/transpose8x8_impl.h"

struct VecAvx512 {
  using T = __m512;
  static constexpr int kW = 16;
  static T zero() { return _mm512_setzero_ps(); }
  static T load(const float* p) { return _mm512_loadu_ps(p); }
  static void store(float* p, T x) { _mm512_storeu_ps(p, x); }
  static T bcast(const float* p) { return _mm512_set1_ps(*p); }
  static T fma(T a, T b, T c) { return _mm512_fmadd_ps(a, b, c); }
  static T add(T a, T b) { return _mm512_add_ps(a, b); }
  // dst[c * ds + r] = src[r * ss + c] for r, c < 8 (transpose8x8_impl.h).
  static constexpr bool kTranspose8 = true;
  static void transpose8(const float* src, int64_t ss, float* dst, int64_t ds) {
    transpose8x8(src, ss, dst, ds);
  }
};

#include "kernels/cpu/gemm_impl.h"

}  // namespace

void gemm_avx512(const GemmArgs& g, ThreadPool& pool) {
  // K slices of 256 for few rows, 512 for many (measured on one core: shakespeare's lm_head
  // forward 128 -> 147 GFLOP/s, MLP down 190 -> 200; GPT-2's forward prefers 256).
  gemm_blocked<VecAvx512, 12, 2, 256, 768, 512>(g, pool);
}

}  // namespace scratchgpt::cpu::detail

#pragma GCC pop_options
