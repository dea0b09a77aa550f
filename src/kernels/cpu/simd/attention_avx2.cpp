// attention_avx2.cpp: the row passes of the stored-weights attention of attention_impl.h compiled
// for AVX2+FMA (8 lanes), whatever the build's -march; only called when the CPU has it. Headers
// come before the target pragma, as in gelu_avx2.cpp.
#include <immintrin.h>

#include <algorithm>
#include <array>
#include <cstdint>
#include <limits>
#include <utility>

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

void attention_softmax_back_avx2(float* dpre, float* g, const float* w, int T, float scale) {
  attention_softmax_back_v<VecAvx2>(dpre, g, w, T, scale);
}

void attention_scores_avx2(float* s, const float* a, int64_t lda, const float* b, int64_t ldb,
                           int T, int HS, float* bt) {
  attention_scores_v<VecAvx2, 4, 3>(s, a, lda, b, ldb, T, HS, bt);
}

void attention_mix_avx2(bool upper, float* c, int64_t ldc, const float* A, int64_t rs_a,
                        int64_t cs_a, const float* b, int64_t ldb, int T, int HS) {
  attention_mix_v<VecAvx2, 4, 3>(upper, c, ldc, A, rs_a, cs_a, b, ldb, T, HS);
}

}  // namespace scratchgpt::cpu::detail

SG_TARGET_END
