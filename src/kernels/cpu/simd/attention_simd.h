// attention_simd.h: the per-ISA kernels of cpu::attention (attention.h): the row passes and the
// per-head products of the stored-weights attention of attention_impl.h compiled for AVX2+FMA
// (attention_avx2.cpp) and AVX-512F (attention_avx512.cpp), each on the calling thread;
// attention.cpp picks one with pick() and threads it. Call only on a CPU that has the set.
#pragma once

#include <cstdint>

namespace scratchgpt::cpu::detail {

// One head's scores, pre, w (T, T), row by row: pre[t][0..t] *= scale, w[t] =
// softmax(pre[t][0..t]); above the diagonal pre = -inf, w = 0.
void attention_softmax_avx2(float* pre, float* w, int T, float scale);
void attention_softmax_avx512(float* pre, float* w, int T, float scale);
// Row t alone (what attention_softmax_* does to each row; short rows are done several at a
// time, with the same arithmetic: cpu_attention_test checks the bits agree).
void attention_softmax_row_avx2(float* pre, float* w, int t, int T, float scale);
void attention_softmax_row_avx512(float* pre, float* w, int t, int T, float scale);

// One head's softmax backward, dpre, g, w (T, T), row by row: dpre = w * (g - sum(w * g)) up to
// the diagonal, 0 above; g = dpre * scale. dpre may be nullptr (then only g is written).
void attention_softmax_back_avx2(float* dpre, float* g, const float* w, int T, float scale);
void attention_softmax_back_avx512(float* dpre, float* g, const float* w, int T, float scale);

// One head's products (attention_impl.h), T and HS multiples of the level's lanes (16 or 8):
// s (T, T) = a b^T on and below the diagonal (bt: (HS, T) scratch), and c (T, HS) = A b with
// A (T, T) lower (upper = false) or upper triangular, A[i][k] = A[i * rs_a + k * cs_a].
void attention_scores_avx2(float* s, const float* a, int64_t lda, const float* b, int64_t ldb,
                           int T, int HS, float* bt);
void attention_scores_avx512(float* s, const float* a, int64_t lda, const float* b, int64_t ldb,
                             int T, int HS, float* bt);
void attention_mix_avx2(bool upper, float* c, int64_t ldc, const float* A, int64_t rs_a,
                        int64_t cs_a, const float* b, int64_t ldb, int T, int HS);
void attention_mix_avx512(bool upper, float* c, int64_t ldc, const float* A, int64_t rs_a,
                          int64_t cs_a, const float* b, int64_t ldb, int T, int HS);

}  // namespace scratchgpt::cpu::detail
