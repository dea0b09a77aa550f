// attention_decode_impl.h: one chunk of attention decoding (attention_decode_simd.h), written once
// over a vector type V (vec_avx2.h, vec_avx512.h) with the row helpers of rows_impl.h, and
// included by attention_decode_avx2.cpp and attention_decode_avx512.cpp inside an anonymous
// namespace after their `SG_TARGET_BEGIN`. Every cached row is read whole and in order, once for
// the scores and once for the values (a head's slice alone, HS floats every C, is a stride the
// hardware prefetcher does not follow). A head's HS channels are V-blocks, the last one masked.
// Readable twin: the portable chunk in attention_decode.cpp; both are checked against the last row
// of ref::attention_forward (cpu_attention_decode_test).
#include "kernels/cpu/simd/rows_impl.h"

// s[h * ld_s] = (q_h . k_h) * scale for every head of one cached key row k (C): each head's
// products in two accumulators (even and odd blocks, the masked tail into the second), summed
// once.
template <class V>
inline void decode_scores_row_v(float* s, int64_t ld_s, const float* q, const float* k, int NH,
                                int HS, float scale) {
  using T = typename V::T;
  constexpr int W = V::kW;
  for (int h = 0; h < NH; ++h) {
    const float* qh = q + h * HS;
    const float* kh = k + h * HS;
    T a0 = V::zero(), a1 = V::zero();
    int i = 0;
    for (; i + 2 * W <= HS; i += 2 * W) {
      a0 = V::fma(V::load(qh + i), V::load(kh + i), a0);
      a1 = V::fma(V::load(qh + i + W), V::load(kh + i + W), a1);
    }
    if (i + W <= HS) a0 = V::fma(V::load(qh + i), V::load(kh + i), a0), i += W;
    if (i < HS) a1 = V::fma(V::load_tail(qh + i, HS - i), V::load_tail(kh + i, HS - i), a1);
    s[h * ld_s] = V::hsum(V::add(a0, a1)) * scale;
  }
}

// o (C) += w_h * v_h for every head of one cached value row v (C), w_h = w[h * ld_w].
template <class V>
inline void decode_values_row_v(float* o, const float* v, const float* w, int64_t ld_w, int NH,
                                int HS) {
  constexpr int W = V::kW;
  for (int h = 0; h < NH; ++h) {
    const typename V::T wh = V::set1(w[h * ld_w]);
    float* oh = o + h * HS;
    const float* vh = v + h * HS;
    int i = 0;
    for (; i + W <= HS; i += W) V::store(oh + i, V::fma(wh, V::load(vh + i), V::load(oh + i)));
    if (i < HS) {
      const int rem = HS - i;
      V::store_tail(oh + i, V::fma(wh, V::load_tail(vh + i, rem), V::load_tail(oh + i, rem)), rem);
    }
  }
}

template <class V>
void decode_chunk_v(const float* q, const float* k, const float* v, int C, int NH, int m,
                    float scale, float* e, int64_t ld_e, float* stats, float* o) {
  const int HS = C / NH;
  for (int t = 0; t < m; ++t) decode_scores_row_v<V>(e + t, ld_e, q, k + int64_t{t} * C, NH, HS, scale);
  for (int h = 0; h < NH; ++h) {  // the chunk's softmax numerators against its own max
    float* eh = e + h * ld_e;     // (m)
    const float mx = row_max_v<V>(eh, m);
    stats[2 * h] = mx;
    stats[2 * h + 1] = row_exp_v<V>(eh, eh, mx, m);
  }
  for (int c = 0; c < C; ++c) o[c] = 0.0f;
  for (int t = 0; t < m; ++t) decode_values_row_v<V>(o, v + int64_t{t} * C, e + t, ld_e, NH, HS);
}
