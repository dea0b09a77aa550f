// attention_impl.h: the row passes of cpu::attention_forward/backward (attention.h, the kernel
// that stores (B, NH, T, T) scores): row t of the scaled, causally masked softmax and of its
// backward, written once over a vector type V (vec_avx2.h, vec_avx512.h) with the row helpers of
// rows_impl.h, and included by attention_avx2.cpp and attention_avx512.cpp inside an anonymous
// namespace after their `SG_TARGET_BEGIN`. Leaves out: the GEMMs (gemm.h). Readable twin: the
// portable rows in attention.cpp, and kernels/ref/attention.h.
#include "kernels/cpu/simd/rows_impl.h"

// Row t of the scores, pre, w (T): pre[0..t] *= scale (in place), w = softmax(pre[0..t]), w = 0
// and pre = -inf above the diagonal.
template <class V>
void attention_softmax_row_v(float* pre, float* w, int t, int T, float scale) {
  const int n = t + 1;
  row_scale_v<V>(pre, pre, scale, n);
  const float sum = row_exp_v<V>(w, pre, row_max_v<V>(pre, n), n);
  row_scale_v<V>(w, w, 1.0f / sum, n);
  row_fill_v<V>(pre + n, -std::numeric_limits<float>::infinity(), T - n);
  row_fill_v<V>(w + n, 0.0f, T - n);
}

// Row t of the softmax backward, dpre, g, w (T), with g = da (in/out) and w the weights:
// dpre = w * (g - sum(w * g)) for j <= t, 0 above; writes dpre and g = dpre * scale.
template <class V>
void attention_softmax_back_row_v(float* dpre, float* g, const float* w, int t, int T,
                                  float scale) {
  using Vt = typename V::T;
  constexpr int W = V::kW;
  const int n = t + 1;
  const Vt vsum = V::set1(row_dot_v<V>(w, g, n)), vscale = V::set1(scale);
  int j = 0;
  for (; j + W <= n; j += W) {
    const Vt d = V::mul(V::load(w + j), V::sub(V::load(g + j), vsum));
    V::store(dpre + j, d);
    V::store(g + j, V::mul(d, vscale));
  }
  if (j < n) {
    const int rem = n - j;
    const Vt d = V::mul(V::load_tail(w + j, rem), V::sub(V::load_tail(g + j, rem), vsum));
    V::store_tail(dpre + j, d, rem);
    V::store_tail(g + j, V::mul(d, vscale), rem);
  }
  row_fill_v<V>(dpre + n, 0.0f, T - n);
  row_fill_v<V>(g + n, 0.0f, T - n);
}
