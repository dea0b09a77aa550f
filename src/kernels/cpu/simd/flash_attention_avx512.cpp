// flash_attention_avx512.cpp: the kernels of flash_attention_impl.h compiled for AVX-512F
// (4 x 64 micro-tiles: 16 zmm accumulators), whatever the build's -march; only called when the
// CPU has AVX-512F and VL. Headers come before the target pragma, as in gemm_avx512.cpp.
// GCC 12 flags the _mm512_undefined_ps() inside max, min, roundscale, cvtps_epi32 and the
// reductions as "maybe uninitialized" (a false positive of the intrinsics header).
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"

#include <immintrin.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>

#include "core/thread_pool.h"
#include "kernels/cpu/flash_attention.h"
#include "kernels/cpu/gemm.h"
#include "core/simd_target.h"

SG_TARGET_BEGIN("avx512f,avx512vl,avx2,fma")

namespace scratchgpt::cpu::detail {
namespace {

#include "kernels/cpu/simd/vec_avx512.h"

#include "kernels/cpu/simd/flash_attention_impl.h"

}  // namespace

void flash_forward_avx512(float* out, float* lse, const float* qkv, int B, int T, int C, int NH,
                          int tile, ThreadPool& pool) {
  flash_forward<VecAvx512, 4, 4>(out, lse, qkv, B, T, C, NH, tile, pool);
}

void flash_backward_avx512(float* dqkv, const float* dout, const float* out, const float* lse,
                           const float* qkv, int B, int T, int C, int NH, int tile,
                           ThreadPool& pool) {
  flash_backward<VecAvx512, 4, 4>(dqkv, dout, out, lse, qkv, B, T, C, NH, tile, pool);
}

}  // namespace scratchgpt::cpu::detail

SG_TARGET_END
