// gemm_avx2.cpp: the GEMM of gemm_impl.h compiled for AVX2+FMA (6 x 16 micro-kernel: 12 ymm
// accumulators), whatever the build's -march; only called when the CPU has AVX2 and FMA.
// Every header is included before the target pragma so no shared inline code gets AVX2 bodies;
// vec_avx2.h, like gemm_impl.h, is meant to be compiled inside it.
#include <immintrin.h>

#include <cstdint>

#include "kernels/cpu/gemm.h"
#include "core/simd_target.h"

SG_TARGET_BEGIN("avx2,fma")

namespace scratchgpt::cpu::detail {
namespace {

#include "kernels/cpu/simd/vec_avx2.h"

#include "kernels/cpu/simd/gemm_impl.h"

}  // namespace

void gemm_avx2(const GemmArgs& g, ThreadPool& pool) {
  gemm_blocked<VecAvx2, 6, 2, 256, 768>(g, pool);
}

}  // namespace scratchgpt::cpu::detail

SG_TARGET_END
