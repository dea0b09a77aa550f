// layernorm_avx2.cpp: the layer normalisation rows of layernorm_impl.h compiled for AVX2+FMA (8
// lanes), whatever the build's -march; only called when the CPU has it. Headers come before the
// target pragma, as in gelu_avx2.cpp.
#include <immintrin.h>

#include <cmath>
#include <cstdint>
#include <limits>

#include "core/simd_target.h"
#include "kernels/cpu/simd/layernorm_simd.h"

SG_TARGET_BEGIN("avx2,fma")

namespace scratchgpt::cpu::detail {
namespace {

#include "kernels/cpu/simd/layernorm_impl.h"
#include "kernels/cpu/simd/vec_avx2.h"

}  // namespace

void layernorm_forward_rows_avx2(float* y, float* mean, float* rstd, const float* x, const float* w,
                                 const float* b, int64_t n, int C, float eps) {
  layernorm_forward_rows_v<VecAvx2>(y, mean, rstd, x, w, b, n, C, eps);
}

void layernorm_backward_rows_avx2(float* dx, float* dw, float* db, const float* dy, const float* x,
                                  const float* w, const float* mean, const float* rstd, int64_t n,
                                  int C) {
  layernorm_backward_rows_v<VecAvx2>(dx, dw, db, dy, x, w, mean, rstd, n, C);
}

}  // namespace scratchgpt::cpu::detail

SG_TARGET_END
