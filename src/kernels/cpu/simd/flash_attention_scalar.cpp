// flash_attention_scalar.cpp: the kernels of flash_attention_impl.h over plain floats (a
// one-lane "vector"), for CPUs without AVX2+FMA and to test the tiling logic on its own.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>

#include "kernels/cpu/simd/flash_attention_simd.h"
#include "kernels/ref/bf16.h"

namespace scratchgpt::cpu::detail {
namespace {

struct VecScalar {
  using T = float;
  static constexpr int kW = 1;
  static T zero() { return 0.0f; }
  static T set1(float x) { return x; }
  static T load(const float* p) { return *p; }
  static void store(float* p, T x) { *p = x; }
  static T bcast(const float* p) { return *p; }
  static T fma(T a, T b, T c) { return a * b + c; }
  static T add(T a, T b) { return a + b; }
  static T sub(T a, T b) { return a - b; }
  static T mul(T a, T b) { return a * b; }
  static T max(T a, T b) { return a > b ? a : b; }
  static T exp(T x) { return std::exp(x); }
  static T round_bf16(T x) { return ref::round_bf16(x); }
  static float hsum(T x) { return x; }
  static float hmax(T x) { return x; }
};

#include "kernels/cpu/simd/flash_attention_impl.h"

}  // namespace

void flash_forward_scalar(float* out, float* lse, const float* qkv, int B, int T, int C, int NH,
                          int tile, bool bf16, ThreadPool& pool) {
  (bf16 ? flash_forward<VecScalar, 4, 4, true>
        : flash_forward<VecScalar, 4, 4, false>)(out, lse, qkv, B, T, C, NH, tile, pool);
}

void flash_backward_scalar(float* dqkv, const float* dout, const float* out, const float* lse,
                           const float* qkv, int B, int T, int C, int NH, int tile, bool bf16,
                           ThreadPool& pool) {
  (bf16 ? flash_backward<VecScalar, 4, 4, true>
        : flash_backward<VecScalar, 4, 4, false>)(dqkv, dout, out, lse, qkv, B, T, C, NH, tile,
                                                  pool);
}

}  // namespace scratchgpt::cpu::detail
