// layernorm_impl.h: one row of cpu::layernorm_forward and of cpu::layernorm_backward
// (layernorm.h), written once over a vector type V (vec_avx2.h,
// vec_avx512.h) and included by layernorm_avx2.cpp and layernorm_avx512.cpp inside an anonymous
// namespace after their `SG_TARGET_BEGIN`, so each copy is compiled for its instruction set.
// A row's tail goes through masked loads and stores (rows_impl.h). Readable twin:
// kernels/ref/layernorm.h.
#include "kernels/cpu/simd/rows_impl.h"

// y (C) = (x - mean) * rstd * w + b; *mean, *rstd of x (C); w, b (C).
template <class V>
void layernorm_row_v(float* y, float* mean, float* rstd, const float* x, const float* w,
                     const float* b, int C, float eps) {
  using T = typename V::T;
  constexpr int W = V::kW;
  const float m = row_sum_v<V>(x, C) / C;
  const T vm = V::set1(m);
  T vv = V::zero();
  int c = 0;
  for (; c + W <= C; c += W) {
    const T d = V::sub(V::load(x + c), vm);
    vv = V::fma(d, d, vv);
  }
  if (c < C) {
    const T d = V::sub(V::load_tail_or(x + c, C - c, m), vm);  // padding lanes: m - m = 0
    vv = V::fma(d, d, vv);
  }
  const float s = 1.0f / std::sqrt(V::hsum(vv) / C + eps);
  const T vs = V::set1(s);
  for (c = 0; c + W <= C; c += W) {
    const T xh = V::mul(V::sub(V::load(x + c), vm), vs);
    V::store(y + c, V::fma(xh, V::load(w + c), V::load(b + c)));
  }
  if (c < C) {
    const int rem = C - c;
    const T xh = V::mul(V::sub(V::load_tail(x + c, rem), vm), vs);
    V::store_tail(y + c, V::fma(xh, V::load_tail(w + c, rem), V::load_tail(b + c, rem)), rem);
  }
  *mean = m;
  *rstd = s;
}

// dx (C) += rstd * (g - mean(g) - xhat * mean(g * xhat)), g = dy * w, xhat = (x - mean) * rstd;
// and the parameter gradients' sums dw (C) += dy * xhat, db (C) += dy; dy, x (C), w (C).
template <class V>
void layernorm_back_row_v(float* dx, float* dw, float* db, const float* dy, const float* x,
                          const float* w, float mean, float rstd, int C) {
  using T = typename V::T;
  constexpr int W = V::kW;
  const T vm = V::set1(mean), vr = V::set1(rstd);
  T sg = V::zero(), sgx = V::zero();
  int c = 0;
  for (; c + W <= C; c += W) {
    const T xh = V::mul(V::sub(V::load(x + c), vm), vr);
    const T g = V::mul(V::load(dy + c), V::load(w + c));
    sg = V::add(sg, g);
    sgx = V::fma(g, xh, sgx);
  }
  if (c < C) {  // padding lanes: g = 0, so they add nothing
    const int rem = C - c;
    const T xh = V::mul(V::sub(V::load_tail(x + c, rem), vm), vr);
    const T g = V::mul(V::load_tail(dy + c, rem), V::load_tail(w + c, rem));
    sg = V::add(sg, g);
    sgx = V::fma(g, xh, sgx);
  }
  const T vgm = V::set1(V::hsum(sg) / C), vgx = V::set1(V::hsum(sgx) / C);
  for (c = 0; c + W <= C; c += W) {
    const T xh = V::mul(V::sub(V::load(x + c), vm), vr);
    const T d = V::load(dy + c);
    const T g = V::mul(d, V::load(w + c));
    const T t = V::fnma(xh, vgx, V::sub(g, vgm));
    V::store(dx + c, V::fma(vr, t, V::load(dx + c)));
    V::store(dw + c, V::fma(d, xh, V::load(dw + c)));
    V::store(db + c, V::add(V::load(db + c), d));
  }
  if (c < C) {
    const int rem = C - c;
    const T xh = V::mul(V::sub(V::load_tail(x + c, rem), vm), vr);
    const T d = V::load_tail(dy + c, rem);
    const T g = V::mul(d, V::load_tail(w + c, rem));
    const T t = V::fnma(xh, vgx, V::sub(g, vgm));
    V::store_tail(dx + c, V::fma(vr, t, V::load_tail(dx + c, rem)), rem);
    V::store_tail(dw + c, V::fma(d, xh, V::load_tail(dw + c, rem)), rem);
    V::store_tail(db + c, V::add(V::load_tail(db + c, rem), d), rem);
  }
}
