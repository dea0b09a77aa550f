// gelu_impl.h: the GELU kernels of gelu.h, written once over a vector type V (vec_avx2.h,
// vec_avx512.h) and included by gelu_avx2.cpp and gelu_avx512.cpp inside an anonymous namespace
// after their `#pragma GCC target`, so each copy is compiled for its instruction set.
// The tail of a range runs the same vector code on a zero-padded copy, so every element gets the
// same arithmetic wherever the chunk edges fall. Readable twin: kernels/ref/gelu.h.

constexpr float kGeluS = 0.7978845608028654f;  // sqrt(2 / pi)
constexpr float kGeluA = 0.044715f;

// tanh(u) = 1 - 2 / (e^{2u} + 1), saturating cleanly at +-1 for large |u|.
template <class V>
inline typename V::T tanh_v(typename V::T u) {
  const typename V::T one = V::set1(1.0f);
  const typename V::T e = V::exp(V::add(u, u));
  return V::sub(one, V::div(V::set1(2.0f), V::add(e, one)));
}

// 0.5 x (1 + tanh(s (x + a x^3)))
template <class V>
inline typename V::T gelu_v(typename V::T x) {
  const typename V::T x3 = V::mul(V::mul(x, x), x);
  const typename V::T th = tanh_v<V>(V::mul(V::set1(kGeluS), V::fma(V::set1(kGeluA), x3, x)));
  return V::mul(V::mul(V::set1(0.5f), x), V::add(V::set1(1.0f), th));
}

// d/dx: 0.5 (1 + th) + 0.5 x (1 - th^2) s (1 + 3a x^2)
template <class V>
inline typename V::T gelu_grad_v(typename V::T x) {
  using T = typename V::T;
  const T x2 = V::mul(x, x);
  const T th = tanh_v<V>(V::mul(V::set1(kGeluS), V::fma(V::set1(kGeluA), V::mul(x2, x), x)));
  const T one = V::set1(1.0f), half = V::set1(0.5f);
  const T sech2 = V::fnma(th, th, one);
  const T poly = V::fma(V::set1(3.0f * kGeluA), x2, one);
  const T right = V::mul(V::mul(V::mul(half, x), sech2), V::mul(V::set1(kGeluS), poly));
  return V::fma(half, V::add(one, th), right);
}

// out[i] = gelu(inp[i]) for i < n.
template <class V>
void gelu_forward_v(float* out, const float* inp, int64_t n) {
  constexpr int W = V::kW;
  int64_t i = 0;
  for (; i + W <= n; i += W) V::store(out + i, gelu_v<V>(V::load(inp + i)));
  if (i < n) {
    float buf[W] = {};
    for (int64_t j = i; j < n; ++j) buf[j - i] = inp[j];
    V::store(buf, gelu_v<V>(V::load(buf)));
    for (int64_t j = i; j < n; ++j) out[j] = buf[j - i];
  }
}

// dinp[i] += dout[i] * gelu'(inp[i]) for i < n.
template <class V>
void gelu_backward_v(float* dinp, const float* inp, const float* dout, int64_t n) {
  constexpr int W = V::kW;
  int64_t i = 0;
  for (; i + W <= n; i += W) {
    const typename V::T g = gelu_grad_v<V>(V::load(inp + i));
    V::store(dinp + i, V::fma(V::load(dout + i), g, V::load(dinp + i)));
  }
  if (i < n) {
    float x[W] = {}, d[W] = {}, acc[W] = {};
    for (int64_t j = i; j < n; ++j) x[j - i] = inp[j], d[j - i] = dout[j], acc[j - i] = dinp[j];
    V::store(acc, V::fma(V::load(d), gelu_grad_v<V>(V::load(x)), V::load(acc)));
    for (int64_t j = i; j < n; ++j) dinp[j] = acc[j - i];
  }
}
