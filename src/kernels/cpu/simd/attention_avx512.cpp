// attention_avx512.cpp: the row passes of the stored-weights attention of attention_impl.h compiled
// for AVX-512F (16 lanes), whatever the build's -march; only called when the CPU has it. Headers
// come before the target pragma, as in gelu_avx512.cpp.
// GCC 12 flags the _mm512_undefined_ps() inside some AVX-512 intrinsics as (maybe) uninitialized
// (a false positive of the intrinsics header; see vec_avx512.h).
#pragma GCC diagnostic ignored "-Wuninitialized"
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#include <immintrin.h>

#include <algorithm>
#include <array>
#include <cstdint>
#include <limits>
#include <utility>

#include "core/simd_target.h"
#include "kernels/cpu/simd/attention_simd.h"

SG_TARGET_BEGIN("avx512f,avx512vl,avx2,fma")

namespace scratchgpt::cpu::detail {
namespace {

#include "kernels/cpu/simd/attention_impl.h"
#include "kernels/cpu/simd/vec_avx512.h"

}  // namespace

void attention_softmax_avx512(float* pre, float* w, int T, float scale) {
  attention_softmax_v<VecAvx512>(pre, w, T, scale);
}

void attention_softmax_row_avx512(float* pre, float* w, int t, int T, float scale) {
  attention_softmax_row_v<VecAvx512>(pre, w, t, T, scale);
}

void attention_softmax_back_avx512(float* dpre, float* g, const float* w, int T, float scale) {
  attention_softmax_back_v<VecAvx512>(dpre, g, w, T, scale);
}

void attention_scores_avx512(float* s, const float* a, int64_t lda, const float* b, int64_t ldb,
                             int T, int HS, float* bt) {
  attention_scores_v<VecAvx512, 4, 4>(s, a, lda, b, ldb, T, HS, bt);
}

void attention_mix_avx512(bool upper, float* c, int64_t ldc, const float* A, int64_t rs_a,
                          int64_t cs_a, const float* b, int64_t ldb, int T, int HS) {
  attention_mix_v<VecAvx512, 8, 2>(upper, c, ldc, A, rs_a, cs_a, b, ldb, T, HS);
}

}  // namespace scratchgpt::cpu::detail

SG_TARGET_END
