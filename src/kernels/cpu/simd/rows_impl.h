// rows_impl.h: maxima, sums, dot products, exp, scaling and fills over one row of floats, written
// once over a vector type V (vec_avx2.h, vec_avx512.h): the building blocks of the row kernels
// (softmax_impl.h, crossentropy_impl.h, attention_impl.h). A row's last n % kW floats go through
// masked loads and stores (V::load_tail, V::load_tail_or, V::store_tail), so nothing past the row
// is read or written and every element gets the same vector arithmetic; each reduction runs in one
// fixed order (lanes, then V::hsum / V::hmax), so a row's result never depends on the threads. Not
// standalone: included by the op's _impl.h inside an anonymous namespace after the vector type,
// compiled once per instruction set; the unit includes <limits> (and <cmath> where the op needs it)
// before its target pragma. Readable twins: the reference loops of kernels/ref/softmax.h and
// crossentropy.h.
#pragma once

// max(x[0..n)); n >= 1.
template <class V>
inline float row_max_v(const float* x, int n) {
  constexpr int W = V::kW;
  constexpr float kNegInf = -std::numeric_limits<float>::infinity();
  typename V::T m = V::set1(kNegInf);
  int c = 0;
  for (; c + W <= n; c += W) m = V::max(m, V::load(x + c));
  if (c < n) m = V::max(m, V::load_tail_or(x + c, n - c, kNegInf));
  return V::hmax(m);
}

// sum(x[0..n))
template <class V>
inline float row_sum_v(const float* x, int n) {
  constexpr int W = V::kW;
  typename V::T s = V::zero();
  int c = 0;
  for (; c + W <= n; c += W) s = V::add(s, V::load(x + c));
  if (c < n) s = V::add(s, V::load_tail(x + c, n - c));
  return V::hsum(s);
}

// sum(a[c] * b[c]) over c < n, one fused multiply-add per element.
template <class V>
inline float row_dot_v(const float* a, const float* b, int n) {
  constexpr int W = V::kW;
  typename V::T s = V::zero();
  int c = 0;
  for (; c + W <= n; c += W) s = V::fma(V::load(a + c), V::load(b + c), s);
  if (c < n) s = V::fma(V::load_tail(a + c, n - c), V::load_tail(b + c, n - c), s);
  return V::hsum(s);
}

// y = exp(x - mx) over n floats; returns sum(y). The tail's padding lanes are -inf, whose exp is
// exactly 0, so they add nothing.
template <class V>
inline float row_exp_v(float* y, const float* x, float mx, int n) {
  using T = typename V::T;
  constexpr int W = V::kW;
  const T vmx = V::set1(mx);
  T s = V::zero();
  int c = 0;
  for (; c + W <= n; c += W) {
    const T e = V::exp(V::sub(V::load(x + c), vmx));
    V::store(y + c, e);
    s = V::add(s, e);
  }
  if (c < n) {
    const int rem = n - c;
    const float neg_inf = -std::numeric_limits<float>::infinity();
    const T e = V::exp(V::sub(V::load_tail_or(x + c, rem, neg_inf), vmx));
    V::store_tail(y + c, e, rem);
    s = V::add(s, e);
  }
  return V::hsum(s);
}

// y = x * k over n floats (y may be x).
template <class V>
inline void row_scale_v(float* y, const float* x, float k, int n) {
  constexpr int W = V::kW;
  const typename V::T vk = V::set1(k);
  int c = 0;
  for (; c + W <= n; c += W) V::store(y + c, V::mul(V::load(x + c), vk));
  if (c < n) V::store_tail(y + c, V::mul(V::load_tail(x + c, n - c), vk), n - c);
}

// y[0..n) = value
template <class V>
inline void row_fill_v(float* y, float value, int n) {
  constexpr int W = V::kW;
  const typename V::T v = V::set1(value);
  int c = 0;
  for (; c + W <= n; c += W) V::store(y + c, v);
  if (c < n) V::store_tail(y + c, v, n - c);
}
