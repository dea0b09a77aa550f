// adamw_avx2.cpp: the vector part of the AdamW step of adamw_impl.h compiled for AVX2+FMA (8
// lanes), whatever the build's -march; only called when the CPU has it. Headers come before the
// target pragma, as in gelu_avx2.cpp.
#include <immintrin.h>

#include <cstdint>

#include "core/simd_target.h"
#include "kernels/cpu/simd/adamw_simd.h"

SG_TARGET_BEGIN("avx2,fma")

namespace scratchgpt::cpu::detail {
namespace {

#include "kernels/cpu/simd/adamw_impl.h"
#include "kernels/cpu/simd/vec_avx2.h"

}  // namespace

int64_t adamw_avx2(float* param, const float* grad, float* m, float* v, int64_t n, float beta1,
                   float beta2, float eps, const ref::AdamWScalars<float>& s, float grad_scale,
                   bool stream_param) {
  return adamw_v<VecAvx2>(param, grad, m, v, n, beta1, beta2, eps, s, grad_scale, stream_param);
}

}  // namespace scratchgpt::cpu::detail

SG_TARGET_END
