// crossentropy_avx512.cpp: the cross-entropy rows of crossentropy_impl.h compiled for AVX-512F (16
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
#include "kernels/cpu/simd/crossentropy_simd.h"

SG_TARGET_BEGIN("avx512f,avx512vl,avx2,fma")

namespace scratchgpt::cpu::detail {
namespace {

#include "kernels/cpu/simd/crossentropy_impl.h"
#include "kernels/cpu/simd/vec_avx512.h"

}  // namespace

void crossentropy_row_avx512(float* loss, float* p, const float* x, int target, int V) {
  crossentropy_row_v<VecAvx512>(loss, p, x, target, V);
}

void crossentropy_back_row_avx512(float* d, const float* p, int target, float k, int V) {
  crossentropy_back_row_v<VecAvx512>(d, p, target, k, V);
}

}  // namespace scratchgpt::cpu::detail

SG_TARGET_END
