// softmax_impl.h: one row of cpu::softmax_forward and of cpu::softmax_backward (softmax.h),
// written once over a vector type V (vec_avx2.h, vec_avx512.h) with the row helpers of
// rows_impl.h, and included by softmax_avx2.cpp and softmax_avx512.cpp inside an anonymous
// namespace after their `SG_TARGET_BEGIN`. -inf entries become exact zeros (V::exp).
// Readable twin: kernels/ref/softmax.h.
#include "kernels/cpu/simd/rows_impl.h"

// y (C) = softmax(x (C))
template <class V>
void softmax_row_v(float* y, const float* x, int C) {
  const float sum = row_exp_v<V>(y, x, row_max_v<V>(x, C), C);
  row_scale_v<V>(y, y, 1.0f / sum, C);
}

// dx (C) += y * (dy - sum(dy * y)); dy, y (C).
template <class V>
void softmax_back_row_v(float* dx, const float* dy, const float* y, int C) {
  using T = typename V::T;
  constexpr int W = V::kW;
  const T vdot = V::set1(row_dot_v<V>(dy, y, C));
  int c = 0;
  for (; c + W <= C; c += W) {
    const T t = V::mul(V::load(y + c), V::sub(V::load(dy + c), vdot));
    V::store(dx + c, V::add(V::load(dx + c), t));
  }
  if (c < C) {
    const int rem = C - c;
    const T t = V::mul(V::load_tail(y + c, rem), V::sub(V::load_tail(dy + c, rem), vdot));
    V::store_tail(dx + c, V::add(V::load_tail(dx + c, rem), t), rem);
  }
}
