// layernorm_avx512.cpp: the layer normalisation rows of layernorm_impl.h compiled for AVX-512F (16
// lanes), whatever the build's -march; only called when the CPU has it. Headers come before the
// target pragma, as in gelu_avx512.cpp.
// GCC 12 flags the _mm512_undefined_ps() inside some AVX-512 intrinsics as (maybe) uninitialized
// (a false positive of the intrinsics header; see vec_avx512.h).
#pragma GCC diagnostic ignored "-Wuninitialized"
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#include <immintrin.h>

#include <cmath>
#include <cstdint>
#include <limits>

#include "core/simd_target.h"
#include "kernels/cpu/simd/layernorm_simd.h"

SG_TARGET_BEGIN("avx512f,avx512vl,avx2,fma")

namespace scratchgpt::cpu::detail {
namespace {

#include "kernels/cpu/simd/layernorm_impl.h"
#include "kernels/cpu/simd/vec_avx512.h"

}  // namespace

void layernorm_forward_rows_avx512(float* y, float* mean, float* rstd, const float* x,
                                   const float* w, const float* b, int64_t n, int C, float eps) {
  layernorm_forward_rows_v<VecAvx512>(y, mean, rstd, x, w, b, n, C, eps);
}

void layernorm_backward_rows_avx512(float* dx, float* dw, float* db, const float* dy,
                                    const float* x, const float* w, const float* mean,
                                    const float* rstd, int64_t n, int C) {
  layernorm_backward_rows_v<VecAvx512>(dx, dw, db, dy, x, w, mean, rstd, n, C);
}

}  // namespace scratchgpt::cpu::detail

SG_TARGET_END
