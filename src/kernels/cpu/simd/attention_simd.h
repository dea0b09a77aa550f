// attention_simd.h: the per-ISA kernels of cpu::attention (attention.h): the row passes of the
// stored-weights attention of attention_impl.h compiled for AVX2+FMA (attention_avx2.cpp) and
// AVX-512F (attention_avx512.cpp), each on the calling thread; attention.cpp picks one with pick()
// and threads it. Call only on a CPU that has the set.
#pragma once

namespace scratchgpt::cpu::detail {

// Row t of the scores, pre, w (T): pre[0..t] *= scale, w = softmax(pre[0..t]); above the
// diagonal pre = -inf, w = 0.
void attention_softmax_row_avx2(float* pre, float* w, int t, int T, float scale);
void attention_softmax_row_avx512(float* pre, float* w, int t, int T, float scale);

// Row t of the softmax backward, dpre, g, w (T): dpre = w * (g - sum(w * g)) up to t, 0 above;
// g = dpre * scale.
void attention_softmax_back_row_avx2(float* dpre, float* g, const float* w, int t, int T,
                                     float scale);
void attention_softmax_back_row_avx512(float* dpre, float* g, const float* w, int t, int T,
                                       float scale);

}  // namespace scratchgpt::cpu::detail
