// softmax_avx2.cpp: the softmax rows of softmax_impl.h compiled for AVX2+FMA (8 lanes), whatever
// the build's -march; only called when the CPU has it. Headers come before the target pragma, as in
// gelu_avx2.cpp.
#include <immintrin.h>

#include <cstdint>
#include <limits>

#include "core/simd_target.h"
#include "kernels/cpu/simd/softmax_simd.h"

SG_TARGET_BEGIN("avx2,fma")

namespace scratchgpt::cpu::detail {
namespace {

#include "kernels/cpu/simd/softmax_impl.h"
#include "kernels/cpu/simd/vec_avx2.h"

}  // namespace

void softmax_row_avx2(float* y, const float* x, int C) { softmax_row_v<VecAvx2>(y, x, C); }

void softmax_back_row_avx2(float* dx, const float* dy, const float* y, int C) {
  softmax_back_row_v<VecAvx2>(dx, dy, y, C);
}

}  // namespace scratchgpt::cpu::detail

SG_TARGET_END
