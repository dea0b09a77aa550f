// gelu_avx2.cpp: the GELU kernels of gelu_impl.h compiled for AVX2+FMA (8 lanes), whatever the build's
// -march; only called when the CPU has it. Headers come before the target pragma, as in
// gemm_avx2.cpp.
#include <immintrin.h>

#include <cstdint>

#include "kernels/cpu/gelu.h"
#include "core/simd_target.h"

SG_TARGET_BEGIN("avx2,fma")

namespace scratchgpt::cpu::detail {
namespace {

#include "kernels/cpu/simd/vec_avx2.h"

#include "kernels/cpu/simd/gelu_impl.h"

}  // namespace

void gelu_forward_avx2(float* out, const float* inp, int64_t n) {
  gelu_forward_v<VecAvx2>(out, inp, n);
}

void gelu_backward_avx2(float* dinp, const float* inp, const float* dout, int64_t n) {
  gelu_backward_v<VecAvx2>(dinp, inp, dout, n);
}

void gelu_exact_forward_avx2(float* out, const float* inp, int64_t n) {
  gelu_exact_forward_v<VecAvx2>(out, inp, n);
}

void gelu_exact_backward_avx2(float* dinp, const float* inp, const float* dout, int64_t n) {
  gelu_exact_backward_v<VecAvx2>(dinp, inp, dout, n);
}

}  // namespace scratchgpt::cpu::detail

SG_TARGET_END
