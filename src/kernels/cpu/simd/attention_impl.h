// attention_impl.h: the row passes of cpu::attention_forward/backward (attention.h, the kernel that
// stores the (B, NH, T, T) weights): the scaled, causally masked softmax of one head's rows and
// its backward, written once over a vector type V (vec_avx2.h, vec_avx512.h) with the row
// helpers of rows_impl.h, and included by attention_avx2.cpp and attention_avx512.cpp inside an
// anonymous namespace after their `SG_TARGET_BEGIN`. Also one head's products, when T and HS are
// whole vectors: the scores q k^T and the four (T, T) x (T, HS) products on tile_product_impl.h (no
// packing but one transpose, no pool; attention.cpp uses the GEMM of gemm.h otherwise). Readable
// twin: the portable rows in attention.cpp, and kernels/ref/attention.h.
#include "kernels/cpu/simd/rows_impl.h"
#include "kernels/cpu/simd/tile_product_impl.h"

// s (T, T) = a b^T on and below the diagonal, a and b (T, HS) rows of strides lda and ldb; above
// the diagonal, s is written up to the end of the diagonal's vector and left alone past it.
// bt (HS, T) is scratch for b^T. T and HS are multiples of V::kW (and so of 8).
template <class V, int MR, int NV>
void attention_scores_v(float* s, const float* a, int64_t lda, const float* b, int64_t ldb, int T,
                        int HS, float* bt) {
  for (int t = 0; t < T; t += 8)
    for (int d = 0; d < HS; d += 8) V::transpose8(b + t * ldb + d, ldb, bt + d * T + t, T);
  tile_product<V, MR, NV, true>(Tri::kLowerC, T, T, HS, a, lda, 1, bt, T, s, T, true);
}

// c (T, HS) = A (T, T) b (T, HS), A[i][k] = A[i * rs_a + k * cs_a] zero above the diagonal
// (upper = false) or below it (upper = true); c and b rows of strides ldc and ldb.
template <class V, int MR, int NV>
void attention_mix_v(bool upper, float* c, int64_t ldc, const float* A, int64_t rs_a, int64_t cs_a,
                     const float* b, int64_t ldb, int T, int HS) {
  tile_product<V, MR, NV, true>(upper ? Tri::kUpperA : Tri::kLowerA, T, HS, T, A, rs_a, cs_a, b,
                                ldb, c, ldc, true);
}

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

// Rows t0 .. t0 + R - 1 of the scores (T <= NV lanes of vectors), held in registers and worked
// on side by side, so that one row's reductions (max, sum) wait while the others compute: short
// rows (the small model's T = 64) are otherwise bound by those latencies. Each row gets exactly
// attention_softmax_row_v's arithmetic: lanes past the diagonal are -inf, whose e^x is 0, and
// adding those zeros to the sum changes no bit.
template <class V, int R, int NV>
inline void attention_softmax_short_rows_v(float* pre, float* w, int t0, int T, float scale) {
  using Vt = typename V::T;
  constexpr int W = V::kW;
  constexpr float kNegInf = -std::numeric_limits<float>::infinity();
  const Vt vk = V::set1(scale);
  auto lanes = [](int n, int v) { return n - v * W < 0 ? 0 : n - v * W < W ? n - v * W : W; };
  Vt x[R][NV], mx[R];
#pragma GCC unroll 4
  for (int r = 0; r < R; ++r) {
    float* p = pre + static_cast<int64_t>(r) * T;
    const int n = t0 + r + 1;  // the row's visible scores
    mx[r] = V::set1(kNegInf);
#pragma GCC unroll 8
    for (int v = 0; v < NV; ++v) {
      const int k = lanes(n, v), kt = lanes(T, v);
      x[r][v] = V::mul(k == W ? V::load(p + v * W) : V::load_tail_or(p + v * W, k, kNegInf), vk);
      if (kt == W)
        V::store(p + v * W, x[r][v]);
      else
        V::store_tail(p + v * W, x[r][v], kt);
      mx[r] = V::max(mx[r], x[r][v]);
    }
  }
  float inv[R];
#pragma GCC unroll 4
  for (int r = 0; r < R; ++r) {
    const Vt m = V::set1(V::hmax(mx[r]));
    Vt sum = V::zero();
#pragma GCC unroll 8
    for (int v = 0; v < NV; ++v) {
      x[r][v] = V::exp(V::sub(x[r][v], m));
      sum = V::add(sum, x[r][v]);
    }
    inv[r] = 1.0f / V::hsum(sum);
  }
#pragma GCC unroll 4
  for (int r = 0; r < R; ++r) {
    float* q = w + static_cast<int64_t>(r) * T;
    const Vt k = V::set1(inv[r]);
#pragma GCC unroll 8
    for (int v = 0; v < NV; ++v) {
      const int kt = lanes(T, v);
      if (kt == W)
        V::store(q + v * W, V::mul(x[r][v], k));
      else
        V::store_tail(q + v * W, V::mul(x[r][v], k), kt);
    }
  }
}

// Rows of NV vectors, R at a time (R x NV scores in half the registers, R <= 4); returns the rows
// done (the last T % R are left to the caller). A group of rows only works on the vectors up to
// its last diagonal, the ones past it are filled (pre = -inf, w = 0): on the causal triangle that
// skips about a third of the exponentials, and drops only terms that are exactly 0 (e^-inf) from
// the sums and -inf from the maxima, so no bit changes.
using SoftmaxRows = void (*)(float*, float*, int, int, float);
template <class V, int R, int... K>
constexpr std::array<SoftmaxRows, sizeof...(K)> softmax_rows_table(
    std::integer_sequence<int, K...>) {
  return {attention_softmax_short_rows_v<V, R, K + 1>...};  // 1 .. NV vectors
}

template <class V, int NV>
int attention_softmax_short_v(float* pre, float* w, int T, float scale) {
  constexpr int R = std::clamp(V::kRegs / 2 / NV, 1, 4), W = V::kW;
  constexpr auto rows = softmax_rows_table<V, R>(std::make_integer_sequence<int, NV>());
  int t = 0;
  for (; t + R <= T; t += R) {
    const int64_t off = static_cast<int64_t>(t) * T;
    const int nv = std::min(NV, (t + R + W - 1) / W);  // vectors that reach the diagonal
    rows[nv - 1](pre + off, w + off, t, T, scale);
    for (int r = 0; r < R && nv < NV; ++r) {
      row_fill_v<V>(pre + off + r * T + nv * W, -std::numeric_limits<float>::infinity(),
                    T - nv * W);
      row_fill_v<V>(w + off + r * T + nv * W, 0.0f, T - nv * W);
    }
  }
  return t;
}

// All T rows of one head's scores, pre and w (T, T): rows as attention_softmax_row_v. Rows of at
// most 8 vectors (T <= 128 at AVX-512, 64 at AVX2) go through attention_softmax_short_rows_v.
template <class V>
void attention_softmax_v(float* pre, float* w, int T, float scale) {
  const int nv = (T + V::kW - 1) / V::kW;
  int t = 0;
  using ShortRows = int (*)(float*, float*, int, float);
  constexpr ShortRows kShort[] = {attention_softmax_short_v<V, 1>, attention_softmax_short_v<V, 2>,
                                  attention_softmax_short_v<V, 3>, attention_softmax_short_v<V, 4>,
                                  attention_softmax_short_v<V, 5>, attention_softmax_short_v<V, 6>,
                                  attention_softmax_short_v<V, 7>, attention_softmax_short_v<V, 8>};
  if (nv >= 1 && nv <= 8) t = kShort[nv - 1](pre, w, T, scale);
  for (; t < T; ++t) {
    const int64_t off = static_cast<int64_t>(t) * T;
    attention_softmax_row_v<V>(pre + off, w + off, t, T, scale);
  }
}

// Row t of the softmax backward, dpre, g, w (T), with g = da (in/out) and w the weights:
// dpre = w * (g - sum(w * g)) for j <= t, 0 above; writes dpre (unless it is nullptr) and
// g = dpre * scale.
template <class V>
inline void attention_softmax_back_row_v(float* dpre, float* g, const float* w, int t, int T,
                                         float scale) {
  using Vt = typename V::T;
  constexpr int W = V::kW;
  const int n = t + 1;
  const Vt vsum = V::set1(row_dot_v<V>(w, g, n)), vscale = V::set1(scale);
  int j = 0;
  for (; j + W <= n; j += W) {
    const Vt d = V::mul(V::load(w + j), V::sub(V::load(g + j), vsum));
    if (dpre) V::store(dpre + j, d);
    V::store(g + j, V::mul(d, vscale));
  }
  if (j < n) {
    const int rem = n - j;
    const Vt d = V::mul(V::load_tail(w + j, rem), V::sub(V::load_tail(g + j, rem), vsum));
    if (dpre) V::store_tail(dpre + j, d, rem);
    V::store_tail(g + j, V::mul(d, vscale), rem);
  }
  if (dpre) row_fill_v<V>(dpre + n, 0.0f, T - n);
  row_fill_v<V>(g + n, 0.0f, T - n);
}

// All T rows of one head's softmax backward, dpre (or nullptr), g, w (T, T): rows as
// attention_softmax_back_row_v, in one loop.
template <class V>
void attention_softmax_back_v(float* dpre, float* g, const float* w, int T, float scale) {
  for (int t = 0; t < T; ++t) {
    const int64_t off = static_cast<int64_t>(t) * T;
    attention_softmax_back_row_v<V>(dpre ? dpre + off : nullptr, g + off, w + off, t, T, scale);
  }
}
