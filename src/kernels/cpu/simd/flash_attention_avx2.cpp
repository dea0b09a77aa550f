// flash_attention_avx2.cpp: the kernels of flash_attention_impl.h compiled for AVX2+FMA (4 x 16
// micro-tiles: 8 ymm accumulators), whatever the build's -march; only called when the CPU has
// AVX2 and FMA. Headers come before the target pragma, as in gemm_avx2.cpp.
#include <immintrin.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>

#include "core/thread_pool.h"
#include "kernels/cpu/flash_attention.h"
#include "kernels/cpu/gemm.h"
#include "core/simd_target.h"

SG_TARGET_BEGIN("avx2,fma")

namespace scratchgpt::cpu::detail {
namespace {

#include "kernels/cpu/simd/vec_avx2.h"

#include "kernels/cpu/simd/flash_attention_impl.h"

}  // namespace

void flash_forward_avx2(float* out, float* lse, const float* qkv, int B, int T, int C, int NH,
                        int tile, ThreadPool& pool) {
  flash_forward<VecAvx2, 4, 2>(out, lse, qkv, B, T, C, NH, tile, pool);
}

void flash_backward_avx2(float* dqkv, const float* dout, const float* out, const float* lse,
                         const float* qkv, int B, int T, int C, int NH, int tile,
                         ThreadPool& pool) {
  flash_backward<VecAvx2, 4, 2>(dqkv, dout, out, lse, qkv, B, T, C, NH, tile, pool);
}

}  // namespace scratchgpt::cpu::detail

SG_TARGET_END
