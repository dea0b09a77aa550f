// gelu_avx512.cpp: the GELU kernels of gelu_impl.h compiled for AVX-512F (16 lanes), whatever the build's
// -march; only called when the CPU has it. Headers come before the target pragma, as in
// gemm_avx512.cpp.
// GCC 12 flags the _mm512_undefined_ps() inside some AVX-512 intrinsics as "maybe uninitialized"
// (a false positive of the intrinsics header; see vec_avx512.h).
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#include <immintrin.h>

#include <cstdint>

#include "kernels/cpu/gelu.h"
#include "core/simd_target.h"

SG_TARGET_BEGIN("avx512f,avx512vl,avx2,fma")

namespace scratchgpt::cpu::detail {
namespace {

#include "kernels/cpu/simd/vec_avx512.h"

#include "kernels/cpu/simd/gelu_impl.h"

}  // namespace

void gelu_forward_avx512(float* out, const float* inp, int64_t n) {
  gelu_forward_v<VecAvx512>(out, inp, n);
}

void gelu_backward_avx512(float* dinp, const float* inp, const float* dout, int64_t n) {
  gelu_backward_v<VecAvx512>(dinp, inp, dout, n);
}

void gelu_exact_forward_avx512(float* out, const float* inp, int64_t n) {
  gelu_exact_forward_v<VecAvx512>(out, inp, n);
}

void gelu_exact_backward_avx512(float* dinp, const float* inp, const float* dout, int64_t n) {
  gelu_exact_backward_v<VecAvx512>(dinp, inp, dout, n);
}

}  // namespace scratchgpt::cpu::detail

SG_TARGET_END
