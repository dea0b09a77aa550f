// attention_simd.h: the per-ISA kernels of cpu::attention (attention.h): the row passes of the
// stored-weights attention of attention_impl.h compiled for AVX2+FMA (attention_avx2.cpp) and
// AVX-512F (attention_avx512.cpp), each on the calling thread; attention.cpp picks one with pick()
// and threads it. Call only on a CPU that has the set.
#pragma once

namespace scratchgpt::cpu::detail {

// One head's scores, pre, w (T, T), row by row: pre[t][0..t] *= scale, w[t] =
// softmax(pre[t][0..t]); above the diagonal pre = -inf, w = 0.
void attention_softmax_avx2(float* pre, float* w, int T, float scale);
void attention_softmax_avx512(float* pre, float* w, int T, float scale);
// Row t alone (what attention_softmax_* does to each row; short rows are done several at a
// time, with the same arithmetic: cpu_attention_test checks the bits agree).
void attention_softmax_row_avx2(float* pre, float* w, int t, int T, float scale);
void attention_softmax_row_avx512(float* pre, float* w, int t, int T, float scale);

// Row t of the softmax backward, dpre, g, w (T): dpre = w * (g - sum(w * g)) up to t, 0 above;
// g = dpre * scale.
void attention_softmax_back_row_avx2(float* dpre, float* g, const float* w, int t, int T,
                                     float scale);
void attention_softmax_back_row_avx512(float* dpre, float* g, const float* w, int t, int T,
                                       float scale);

}  // namespace scratchgpt::cpu::detail
