// adamw_avx512.cpp: the vector part of the AdamW step of adamw_impl.h compiled for AVX-512F (16
// lanes), whatever the build's -march; only called when the CPU has it. Headers come before the
// target pragma, as in gelu_avx512.cpp.
// GCC 12 flags the _mm512_undefined_ps() inside some AVX-512 intrinsics as (maybe) uninitialized
// (a false positive of the intrinsics header; see vec_avx512.h).
#pragma GCC diagnostic ignored "-Wuninitialized"
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#include <immintrin.h>

#include <cstdint>

#include "core/simd_target.h"
#include "kernels/cpu/simd/adamw_simd.h"

SG_TARGET_BEGIN("avx512f,avx512vl,avx2,fma")

namespace scratchgpt::cpu::detail {
namespace {

#include "kernels/cpu/simd/adamw_impl.h"
#include "kernels/cpu/simd/vec_avx512.h"

}  // namespace

int64_t adamw_avx512(float* param, const float* grad, float* m, float* v, int64_t n, float beta1,
                     float beta2, float eps, const ref::AdamWScalars<float>& s, float grad_scale,
                     bool stream_param) {
  return adamw_v<VecAvx512>(param, grad, m, v, n, beta1, beta2, eps, s, grad_scale, stream_param);
}

}  // namespace scratchgpt::cpu::detail

SG_TARGET_END
