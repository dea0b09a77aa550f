// crossentropy_impl.h: one row of cpu::crossentropy_forward and of cpu::crossentropy_backward
// (crossentropy.h), written once over a vector type V (vec_avx2.h, vec_avx512.h) with the row
// helpers of rows_impl.h, and included by crossentropy_avx2.cpp and crossentropy_avx512.cpp
// inside an anonymous namespace after their `SG_TARGET_BEGIN`.
// Readable twin: kernels/ref/crossentropy.h.
#include "kernels/cpu/simd/rows_impl.h"

// p (V) = softmax(x (V)), *loss = -log p[target], in log-sum-exp form as the reference.
template <class V>
void crossentropy_row_v(float* loss, float* p, const float* x, int target, int Vn) {
  const float mx = row_max_v<V>(x, Vn);
  const float sum = row_exp_v<V>(p, x, mx, Vn);
  row_scale_v<V>(p, p, 1.0f / sum, Vn);
  *loss = std::log(sum) + mx - x[target];
}

// d (V) = k * (p - onehot(target)), d not read; p (V). The same float arithmetic as the reference.
template <class V>
void crossentropy_back_row_v(float* d, const float* p, int target, float k, int Vn) {
  constexpr int W = V::kW;
  const typename V::T vk = V::set1(k);
  int v = 0;
  for (; v + W <= Vn; v += W) V::store(d + v, V::mul(vk, V::load(p + v)));
  if (v < Vn) {
    const int rem = Vn - v;
    V::store_tail(d + v, V::mul(vk, V::load_tail(p + v, rem)), rem);
  }
  d[target] = k * (p[target] - 1.0f);
}
