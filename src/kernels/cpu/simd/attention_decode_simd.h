// attention_decode_simd.h: the per-ISA kernel of cpu::attention_decode_forward
// (attention_decode.h): one chunk of cached positions for every head, attention_decode_impl.h
// compiled for AVX2+FMA (attention_decode_avx2.cpp) and AVX-512F (attention_decode_avx512.cpp), on
// the calling thread; attention_decode.cpp picks one with pick() and threads the chunks. Call only
// on a CPU that has the set.
#pragma once

#include <cstdint>

namespace scratchgpt::cpu::detail {

// m cached rows k, v (m, C) (row stride C) against q (C), NH heads of HS = C / NH channels:
// e[h * ld_e + t] = exp(s_h[t] - max_t s_h), s_h[t] = q_h . k_h[t] * scale; stats[2h] = that
// max, stats[2h + 1] = the sum of e_h; o (C) = per head sum_t e_h[t] v_h[t], t in order.
void attention_decode_chunk_avx2(const float* q, const float* k, const float* v, int C, int NH,
                                 int m, float scale, float* e, int64_t ld_e, float* stats,
                                 float* o);
void attention_decode_chunk_avx512(const float* q, const float* k, const float* v, int C, int NH,
                                   int m, float scale, float* e, int64_t ld_e, float* stats,
                                   float* o);

}  // namespace scratchgpt::cpu::detail
