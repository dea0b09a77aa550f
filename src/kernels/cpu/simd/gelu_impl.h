// gelu_impl.h: the GELU kernels of gelu.h (tanh approximation and exact), written once over a vector type V (vec_avx2.h,
// vec_avx512.h) and included by gelu_avx2.cpp and gelu_avx512.cpp inside an anonymous namespace
// after their `SG_TARGET_BEGIN`, so each copy is compiled for its instruction set.
// The tail of a range runs the same vector code on a zero-padded copy, so every element gets the
// same arithmetic wherever the chunk edges fall. Readable twin: kernels/ref/gelu.h.

constexpr float kGeluS = 0.7978845608028654f;  // sqrt(2 / pi)
constexpr float kGeluA = 0.044715f;
constexpr float kInvSqrt2 = 0.70710678118654752f;    // 1 / sqrt(2)
constexpr float kInvSqrt2Pi = 0.39894228040143268f;  // 1 / sqrt(2 pi)

// The tanh form as a sigmoid: 0.5 (1 + tanh u) = 1 / (1 + e^{-2u}), u = s (x + a x^3), so
// gelu(x) = x / (1 + e^{-2u}). The same function in fewer operations (no tanh to rebuild, no
// 0.5 (1 + th) to form), and no cancellation where tanh u is near -1: the negative tail keeps its
// relative accuracy. -2u = x (-2s - 2sa x^2).
template <class V>
inline typename V::T minus_two_u_v(typename V::T x, typename V::T x2) {
  return V::mul(x, V::fma(V::set1(-2.0f * kGeluS * kGeluA), x2, V::set1(-2.0f * kGeluS)));
}

template <class V>
inline typename V::T gelu_v(typename V::T x) {
  const typename V::T e = V::exp(minus_two_u_v<V>(x, V::mul(x, x)));
  return V::div(x, V::add(V::set1(1.0f), e));
}

// d/dx: sg + x sg (1 - sg) d(2u)/dx, with sg = 1 / (1 + e^{-2u}) and d(2u)/dx = 2s (1 + 3a x^2).
template <class V>
inline typename V::T gelu_grad_v(typename V::T x) {
  using T = typename V::T;
  const T x2 = V::mul(x, x), one = V::set1(1.0f);
  const T sg = V::div(one, V::add(one, V::exp(minus_two_u_v<V>(x, x2))));
  const T d2u = V::fma(V::set1(6.0f * kGeluS * kGeluA), x2, V::set1(2.0f * kGeluS));
  return V::fma(V::mul(x, d2u), V::fnma(sg, sg, sg), sg);  // sg + x d2u (sg - sg^2)
}

// erfc(z) for z >= 0: Numerical Recipes' Chebyshev fit (section 6.2, "erfcc"),
//   erfc(z) = t exp(-z^2 - 1.26551223 + t P(t)),  t = 1 / (1 + z / 2),
// relative error below 1.2e-7 for every z >= 0, so the tiny values of the negative tail stay
// accurate in relative terms too. Large z underflows cleanly to 0 through V::exp.
template <class V>
inline typename V::T erfc_pos_v(typename V::T z) {
  using T = typename V::T;
  const T t = V::div(V::set1(1.0f), V::fma(V::set1(0.5f), z, V::set1(1.0f)));
  T p = V::set1(0.17087277f);
  p = V::fma(p, t, V::set1(-0.82215223f));
  p = V::fma(p, t, V::set1(1.48851587f));
  p = V::fma(p, t, V::set1(-1.13520398f));
  p = V::fma(p, t, V::set1(0.27886807f));
  p = V::fma(p, t, V::set1(-0.18628806f));
  p = V::fma(p, t, V::set1(0.09678418f));
  p = V::fma(p, t, V::set1(0.37409196f));
  p = V::fma(p, t, V::set1(1.00002368f));
  p = V::fma(p, t, V::set1(-1.26551223f));
  return V::mul(t, V::exp(V::fnma(z, z, p)));  // t e^{p - z^2}
}

// Phi(x) = 0.5 (1 + erf(x / sqrt 2)) = 0.5 erfc(-x / sqrt 2): 0.5 erfc(|x| / sqrt 2) for x < 0,
// 1 - 0.5 erfc(|x| / sqrt 2) otherwise.
template <class V>
inline typename V::T normal_cdf_v(typename V::T x) {
  using T = typename V::T;
  const T half_erfc = V::mul(V::set1(0.5f), erfc_pos_v<V>(V::mul(V::abs(x), V::set1(kInvSqrt2))));
  return V::select_neg(x, half_erfc, V::sub(V::set1(1.0f), half_erfc));
}

// x Phi(x)
template <class V>
inline typename V::T gelu_exact_v(typename V::T x) {
  return V::mul(x, normal_cdf_v<V>(x));
}

// d/dx: Phi(x) + x phi(x), phi(x) = e^{-x^2 / 2} / sqrt(2 pi)
template <class V>
inline typename V::T gelu_exact_grad_v(typename V::T x) {
  using T = typename V::T;
  const T pdf = V::mul(V::set1(kInvSqrt2Pi), V::exp(V::mul(V::set1(-0.5f), V::mul(x, x))));
  return V::fma(x, pdf, normal_cdf_v<V>(x));
}

// out[i] = f(inp[i]) for i < n, f a function of one vector. f is a function template instance,
// not a lambda: a lambda's operator() is not covered by the unit's `SG_TARGET_BEGIN`, so on a
// CPU without AVX-512 GCC would compile a 512-bit return without the target (-Wpsabi).
template <class V, typename V::T (*f)(typename V::T)>
void map_forward_v(float* out, const float* inp, int64_t n) {
  constexpr int W = V::kW;
  int64_t i = 0;
  for (; i + W <= n; i += W) V::store(out + i, f(V::load(inp + i)));
  if (i < n) {
    float buf[W] = {};
    for (int64_t j = i; j < n; ++j) buf[j - i] = inp[j];
    V::store(buf, f(V::load(buf)));
    for (int64_t j = i; j < n; ++j) out[j] = buf[j - i];
  }
}

// dinp[i] = dout[i] * df(inp[i]) for i < n, df the derivative of f (dinp is not read).
template <class V, typename V::T (*df)(typename V::T)>
void map_backward_v(float* dinp, const float* inp, const float* dout, int64_t n) {
  constexpr int W = V::kW;
  int64_t i = 0;
  for (; i + W <= n; i += W) V::store(dinp + i, V::mul(V::load(dout + i), df(V::load(inp + i))));
  if (i < n) {
    float x[W] = {}, d[W] = {}, out[W];
    for (int64_t j = i; j < n; ++j) x[j - i] = inp[j], d[j - i] = dout[j];
    V::store(out, V::mul(V::load(d), df(V::load(x))));
    for (int64_t j = i; j < n; ++j) dinp[j] = out[j - i];
  }
}

template <class V>
void gelu_forward_v(float* out, const float* inp, int64_t n) {
  map_forward_v<V, gelu_v<V>>(out, inp, n);
}
template <class V>
void gelu_backward_v(float* dinp, const float* inp, const float* dout, int64_t n) {
  map_backward_v<V, gelu_grad_v<V>>(dinp, inp, dout, n);
}
template <class V>
void gelu_exact_forward_v(float* out, const float* inp, int64_t n) {
  map_forward_v<V, gelu_exact_v<V>>(out, inp, n);
}
template <class V>
void gelu_exact_backward_v(float* dinp, const float* inp, const float* dout, int64_t n) {
  map_backward_v<V, gelu_exact_grad_v<V>>(dinp, inp, dout, n);
}
