// crossentropy_avx2.cpp: the cross-entropy rows of crossentropy_impl.h compiled for AVX2+FMA (8
// lanes), whatever the build's -march; only called when the CPU has it. Headers come before the
// target pragma, as in gelu_avx2.cpp.
#include <immintrin.h>

#include <cmath>
#include <cstdint>
#include <limits>

#include "core/simd_target.h"
#include "kernels/cpu/simd/crossentropy_simd.h"

SG_TARGET_BEGIN("avx2,fma")

namespace scratchgpt::cpu::detail {
namespace {

#include "kernels/cpu/simd/crossentropy_impl.h"
#include "kernels/cpu/simd/vec_avx2.h"

}  // namespace

void crossentropy_row_avx2(float* loss, float* p, const float* x, int target, int V) {
  crossentropy_row_v<VecAvx2>(loss, p, x, target, V);
}

void crossentropy_back_row_avx2(float* d, const float* p, int target, float k, int V) {
  crossentropy_back_row_v<VecAvx2>(d, p, target, k, V);
}

}  // namespace scratchgpt::cpu::detail

SG_TARGET_END
