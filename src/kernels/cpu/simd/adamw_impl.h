// adamw_impl.h: the vector part of cpu::adamw_update (adamw.h), written once over a vector type V
// (vec_avx2.h, vec_avx512.h) and included by adamw_avx2.cpp and adamw_avx512.cpp inside an
// anonymous namespace after their `SG_TARGET_BEGIN`. It makes the reference's operations in the
// reference's order with no fused multiply-add (IEEE sqrt and division are exact-rounded in
// both), so every element equals the reference bit for bit. Leaves out: the last n % kW elements,
// which the reference loop does (adamw.cpp). Readable twin: kernels/ref/adamw.h.
// stream_param: the new parameters are written with non-temporal stores (when param is aligned to
// the vector), past the caches; adamw.cpp says when and why. The stored bits are the same.

// param, grad, m, v (n): elements [0, n - n % kW); returns how many it did.
template <class V, bool kStreamParam>
int64_t adamw_loop(float* param, const float* grad, float* m, float* v, int64_t n, float beta1,
                   float beta2, float eps, const ref::AdamWScalars<float>& s, float grad_scale) {
  using T = typename V::T;
  constexpr int W = V::kW;
  const T decay = V::set1(s.decay), b1 = V::set1(beta1), b2 = V::set1(beta2),
          omb1 = V::set1(s.one_minus_b1), omb2 = V::set1(s.one_minus_b2),
          neg_step = V::set1(-s.step_size), bc2_sqrt = V::set1(s.bc2_sqrt), veps = V::set1(eps),
          scale = V::set1(grad_scale);
  const bool scaled = grad_scale != 1.0f;
  int64_t i = 0;
  for (; i + W <= n; i += W) {
    T g = V::load(grad + i);
    if (scaled) g = V::mul(g, scale);
    const T p = V::mul(V::load(param + i), decay);                                // param *= decay
    const T mi = V::add(V::mul(V::load(m + i), b1), V::mul(omb1, g));             // m b1 + (1-b1) g
    const T vi = V::add(V::mul(V::load(v + i), b2), V::mul(V::mul(omb2, g), g));  // (1-b2) g g
    const T denom = V::add(V::div(V::sqrt(vi), bc2_sqrt), veps);  // sqrt(v) / sqrt(bc2) + eps
    V::store(m + i, mi);
    V::store(v + i, vi);
    const T updated = V::add(p, V::div(V::mul(neg_step, mi), denom));  // p += -step m / denom
    if constexpr (kStreamParam)
      V::stream(param + i, updated);
    else
      V::store(param + i, updated);
  }
  if constexpr (kStreamParam) _mm_sfence();  // the streamed stores land before the pool's hand-off
  return i;
}

template <class V>
int64_t adamw_v(float* param, const float* grad, float* m, float* v, int64_t n, float beta1,
                float beta2, float eps, const ref::AdamWScalars<float>& s, float grad_scale,
                bool stream_param) {
  if (stream_param && reinterpret_cast<uintptr_t>(param) % (V::kW * sizeof(float)) == 0)
    return adamw_loop<V, true>(param, grad, m, v, n, beta1, beta2, eps, s, grad_scale);
  return adamw_loop<V, false>(param, grad, m, v, n, beta1, beta2, eps, s, grad_scale);
}
