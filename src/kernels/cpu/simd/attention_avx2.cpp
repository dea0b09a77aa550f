// attention_avx2.cpp: the row passes of the stored-weights attention of attention_impl.h compiled
// for AVX2+FMA (8 lanes), whatever the build's -march; only called when the CPU has it. Headers
// come before the target pragma, as in gelu_avx2.cpp.
#include <immintrin.h>

#include <algorithm>
#include <cstdint>
#include <limits>

#include "core/simd_target.h"
#include "kernels/cpu/simd/attention_simd.h"

SG_TARGET_BEGIN("avx2,fma")

namespace scratchgpt::cpu::detail {
namespace {

#include "kernels/cpu/simd/attention_impl.h"
#include "kernels/cpu/simd/vec_avx2.h"

}  // namespace

void attention_softmax_avx2(float* pre, float* w, int T, float scale) {
  attention_softmax_v<VecAvx2>(pre, w, T, scale);
}

void attention_softmax_row_avx2(float* pre, float* w, int t, int T, float scale) {
  attention_softmax_row_v<VecAvx2>(pre, w, t, T, scale);
}

void attention_softmax_back_row_avx2(float* dpre, float* g, const float* w, int t, int T,
                                     float scale) {
  attention_softmax_back_row_v<VecAvx2>(dpre, g, w, t, T, scale);
}

}  // namespace scratchgpt::cpu::detail

SG_TARGET_END
