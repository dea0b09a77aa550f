// layernorm_impl.h: rows of cpu::layernorm_forward and of cpu::layernorm_backward (layernorm.h),
// written once over a vector type V (vec_avx2.h, vec_avx512.h) and included by layernorm_avx2.cpp
// and layernorm_avx512.cpp inside an anonymous namespace after their `SG_TARGET_BEGIN`, so each
// copy is compiled for its instruction set. A row's tail goes through masked loads and stores. R
// rows go side by side: a row alone is a chain of dependent sums (its mean, then its variance, each
// ending in a horizontal sum), which is latency, not work; R independent chains keep the units
// busy. Each row gets the same operations in the same order whatever R is, so the bits never depend
// on how rows are grouped. Readable twin: kernels/ref/layernorm.h.

// Rows r < R (stride C): y = (x - mean) * rstd * w + b; mean[r], rstd[r] of x; w, b (C).
template <class V, int R>
void layernorm_rows_v(float* y, float* mean, float* rstd, const float* x, const float* w,
                      const float* b, int C, float eps) {
  using T = typename V::T;
  constexpr int W = V::kW;
  const int tail = C % W, full = C - tail;
  T acc[R];
  float m[R], s[R];
  // mean: one sum per row, vectors in order, then the lanes (as row_sum_v)
  for (int r = 0; r < R; ++r) acc[r] = V::zero();
  for (int c = 0; c < full; c += W)
    for (int r = 0; r < R; ++r) acc[r] = V::add(acc[r], V::load(x + r * C + c));
  for (int r = 0; r < R; ++r) {
    if (tail) acc[r] = V::add(acc[r], V::load_tail(x + r * C + full, tail));
    m[r] = V::hsum(acc[r]) / C;
    acc[r] = V::zero();
  }
  // variance: the sum of (x - mean)^2 (padding lanes: m - m = 0)
  for (int c = 0; c < full; c += W)
    for (int r = 0; r < R; ++r) {
      const T d = V::sub(V::load(x + r * C + c), V::set1(m[r]));
      acc[r] = V::fma(d, d, acc[r]);
    }
  for (int r = 0; r < R; ++r) {
    if (tail) {
      const T d = V::sub(V::load_tail_or(x + r * C + full, tail, m[r]), V::set1(m[r]));
      acc[r] = V::fma(d, d, acc[r]);
    }
    s[r] = 1.0f / std::sqrt(V::hsum(acc[r]) / C + eps);
  }
  for (int c = 0; c < full; c += W) {
    const T vw = V::load(w + c), vb = V::load(b + c);
    for (int r = 0; r < R; ++r) {
      const T xh = V::mul(V::sub(V::load(x + r * C + c), V::set1(m[r])), V::set1(s[r]));
      V::store(y + r * C + c, V::fma(xh, vw, vb));
    }
  }
  if (tail) {
    const T vw = V::load_tail(w + full, tail), vb = V::load_tail(b + full, tail);
    for (int r = 0; r < R; ++r) {
      const T xh =
          V::mul(V::sub(V::load_tail(x + r * C + full, tail), V::set1(m[r])), V::set1(s[r]));
      V::store_tail(y + r * C + full, V::fma(xh, vw, vb), tail);
    }
  }
  for (int r = 0; r < R; ++r) mean[r] = m[r], rstd[r] = s[r];
}

// n rows: groups of four, then one at a time.
template <class V>
void layernorm_forward_rows_v(float* y, float* mean, float* rstd, const float* x, const float* w,
                              const float* b, int64_t n, int C, float eps) {
  int64_t i = 0;
  for (; i + 4 <= n; i += 4)
    layernorm_rows_v<V, 4>(y + i * C, mean + i, rstd + i, x + i * C, w, b, C, eps);
  for (; i < n; ++i) layernorm_rows_v<V, 1>(y + i * C, mean + i, rstd + i, x + i * C, w, b, C, eps);
}

// Columns [c, c + W) (or the first rem of them, rem > 0) of layernorm_back_rows_v's second pass,
// for all R rows; dw and db stay in registers across the rows. (A function, not a lambda: a
// lambda's body would not be compiled for the unit's target.)
template <class V, int R>
inline void layernorm_back_columns_v(float* dx, float* dw, float* db, const float* dy,
                                     const float* x, const float* w, const float* mean,
                                     const float* rstd, const float* gm, const float* gxm, int C,
                                     int c, int rem) {
  using T = typename V::T;
  const T vw = rem ? V::load_tail(w + c, rem) : V::load(w + c);
  T vdw = rem ? V::load_tail(dw + c, rem) : V::load(dw + c);
  T vdb = rem ? V::load_tail(db + c, rem) : V::load(db + c);
  for (int r = 0; r < R; ++r) {
    const int64_t o = static_cast<int64_t>(r) * C + c;
    const T vx = rem ? V::load_tail(x + o, rem) : V::load(x + o);
    const T d = rem ? V::load_tail(dy + o, rem) : V::load(dy + o);
    const T vdx = rem ? V::load_tail(dx + o, rem) : V::load(dx + o);
    const T vr = V::set1(rstd[r]);
    const T xh = V::mul(V::sub(vx, V::set1(mean[r])), vr);
    const T t = V::fnma(xh, V::set1(gxm[r]), V::sub(V::mul(d, vw), V::set1(gm[r])));
    const T out = V::fma(vr, t, vdx);
    vdw = V::fma(d, xh, vdw);
    vdb = V::add(vdb, d);
    if (rem)
      V::store_tail(dx + o, out, rem);
    else
      V::store(dx + o, out);
  }
  if (rem) {
    V::store_tail(dw + c, vdw, rem);
    V::store_tail(db + c, vdb, rem);
  } else {
    V::store(dw + c, vdw);
    V::store(db + c, vdb);
  }
}

// Rows r < R (stride C) of the backward: dx += rstd * (g - mean(g) - xhat * mean(g * xhat)),
// g = dy * w, xhat = (x - mean) * rstd; and the parameter gradients' sums dw (C) += dy * xhat,
// db (C) += dy, added row after row (r = 0 first), as R calls of one row would.
template <class V, int R>
void layernorm_back_rows_v(float* dx, float* dw, float* db, const float* dy, const float* x,
                           const float* w, const float* mean, const float* rstd, int C) {
  using T = typename V::T;
  constexpr int W = V::kW;
  const int tail = C % W, full = C - tail;
  T sg[R], sgx[R];
  for (int r = 0; r < R; ++r) sg[r] = V::zero(), sgx[r] = V::zero();
  for (int c = 0; c < full; c += W) {
    const T vw = V::load(w + c);
    for (int r = 0; r < R; ++r) {
      const T xh = V::mul(V::sub(V::load(x + r * C + c), V::set1(mean[r])), V::set1(rstd[r]));
      const T g = V::mul(V::load(dy + r * C + c), vw);
      sg[r] = V::add(sg[r], g);
      sgx[r] = V::fma(g, xh, sgx[r]);
    }
  }
  if (tail) {  // padding lanes: g = 0, so they add nothing
    const T vw = V::load_tail(w + full, tail);
    for (int r = 0; r < R; ++r) {
      const T xh =
          V::mul(V::sub(V::load_tail(x + r * C + full, tail), V::set1(mean[r])), V::set1(rstd[r]));
      const T g = V::mul(V::load_tail(dy + r * C + full, tail), vw);
      sg[r] = V::add(sg[r], g);
      sgx[r] = V::fma(g, xh, sgx[r]);
    }
  }
  float gm[R], gxm[R];
  for (int r = 0; r < R; ++r) gm[r] = V::hsum(sg[r]) / C, gxm[r] = V::hsum(sgx[r]) / C;
  for (int c = 0; c < full; c += W)
    layernorm_back_columns_v<V, R>(dx, dw, db, dy, x, w, mean, rstd, gm, gxm, C, c, 0);
  if (tail)
    layernorm_back_columns_v<V, R>(dx, dw, db, dy, x, w, mean, rstd, gm, gxm, C, full, tail);
}

// n rows of the backward: groups of four, then one at a time.
template <class V>
void layernorm_backward_rows_v(float* dx, float* dw, float* db, const float* dy, const float* x,
                               const float* w, const float* mean, const float* rstd, int64_t n,
                               int C) {
  int64_t i = 0;
  for (; i + 4 <= n; i += 4)
    layernorm_back_rows_v<V, 4>(dx + i * C, dw, db, dy + i * C, x + i * C, w, mean + i, rstd + i,
                                C);
  for (; i < n; ++i)
    layernorm_back_rows_v<V, 1>(dx + i * C, dw, db, dy + i * C, x + i * C, w, mean + i, rstd + i,
                                C);
}
