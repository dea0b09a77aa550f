// flash_attention_impl.h: the tiled forward and backward of flash_attention.h, written once over a
// vector type V and included by each per-ISA file (flash_attention_avx512.cpp, ...) inside an
// anonymous namespace after its `SG_TARGET_BEGIN`, as gemm_impl.h is.
// V provides: T, kW (lanes), zero(), set1(x), load(p), store(p, x), bcast(p), fma(a, b, c) =
// a*b + c, add, sub, mul, max, exp (0 for -inf), hsum, hmax, round_bf16.
// R16 (--dtype bf16): every product's inputs are rounded to bf16 values (kept as floats, so a
// product of two is exact and the sums are fp32's, in the same order): q, k, v and dout as they
// are packed, the weights p and the scores' gradient ds (times the scale) in the row passes. The
// forward rounds each tile's unnormalised p = exp(s - running max), as FlashAttention does, so its
// weights round at other points than the stored kernel's; the backward recomputes the normalised
// p from lse and rounds where ref::attention_backward with bf16 does. ref::flash_attention_*_bf16
// is the twin.
// Per tile pair the products are small register-blocked loops (MR rows x NV vectors of
// accumulators) over packed tiles that stay in L1: S (tile, tile) = Q K^T, then the row pass
// (online softmax forward, or P and dS backward), then P V (or P^T dO, dS^T Q, dS K).
// Not standalone: needs <algorithm>, <cmath>, <limits>, ThreadPool and thread_buffer first.

constexpr float kInf = std::numeric_limits<float>::infinity();

#include "kernels/cpu/simd/tile_product_impl.h"

// Valid columns of row r of a tile: all of them, or on the diagonal tile those up to r rounded up
// to whole vectors (the ones past r inside that last vector are set to -inf by mask_row).
template <class V>
inline int row_extent(int r, int tile, bool diag) {
  return diag ? std::min(tile, round_up(r + 1, V::kW)) : tile;
}
inline void mask_row(float* s, int r, int n) {
  for (int j = r + 1; j < n; ++j) s[j] = -kInf;
}

// One row of the forward's online softmax over a key tile: s[0 .. n) raw scores q.k (masked ones
// -inf) become p = exp(s * scale - m_new), s[n .. tile) = 0; the running max m and sum l, and the
// output accumulator o (hsp) are rescaled by exp(m - m_new).
template <class V, bool R16>
inline void online_softmax_row(float* s, int n, int tile, float scale, float& m, float& l, float* o,
                               int hsp) {
  using T = typename V::T;
  constexpr int W = V::kW;
  const T vs = V::set1(scale);
  T vmax = V::set1(-kInf);
  for (int j = 0; j < n; j += W) {
    const T x = V::mul(V::load(s + j), vs);
    V::store(s + j, x);
    vmax = V::max(vmax, x);
  }
  const float mx = V::hmax(vmax);
  const float m_new = m > mx ? m : mx;
  const T vm = V::set1(m_new);
  T vsum = V::zero();
  for (int j = 0; j < n; j += W) {
    const T e = V::exp(V::sub(V::load(s + j), vm));
    V::store(s + j, R16 ? V::round_bf16(e) : e);  // the P V product's input; l sums e unrounded
    vsum = V::add(vsum, e);
  }
  for (int j = n; j < tile; j += W) V::store(s + j, V::zero());
  const float alpha = std::exp(m - m_new);  // 0 on the first tile (m = -inf)
  l = l * alpha + V::hsum(vsum);
  m = m_new;
  const T va = V::set1(alpha);
  for (int d = 0; d < hsp; d += W) V::store(o + d, V::mul(V::load(o + d), va));
}

// One row of the backward: s[0 .. n) raw scores become p = exp(s * scale - lse) and dp[0 .. n)
// becomes ds = p * (dp - D); both are 0 from n to tile. R16: bf16(p) and bf16(ds * scale), the
// products' inputs (the caller then leaves the scale out of dq and dk).
template <class V, bool R16>
inline void softmax_grad_row(float* s, float* dp, int n, int tile, float scale, float lse,
                             float D) {
  using T = typename V::T;
  constexpr int W = V::kW;
  const T vs = V::set1(scale), vl = V::set1(lse), vd = V::set1(D);
  for (int j = 0; j < n; j += W) {
    const T p = V::exp(V::sub(V::mul(V::load(s + j), vs), vl));
    const T ds = V::mul(p, V::sub(V::load(dp + j), vd));
    if constexpr (R16) {
      V::store(s + j, V::round_bf16(p));
      V::store(dp + j, V::round_bf16(V::mul(ds, vs)));
    } else {
      V::store(s + j, p);
      V::store(dp + j, ds);
    }
  }
  for (int j = n; j < tile; j += W) {
    V::store(s + j, V::zero());
    V::store(dp + j, V::zero());
  }
}

// kt (HS, tile) = rows [j0, j0 + cols) of x (stride ld) transposed, zero past cols.
inline void pack_transposed(float* kt, const float* x, int64_t ld, int j0, int cols, int HS,
                            int tile) {
  for (int d = 0; d < HS; ++d) std::fill(kt + d * tile + cols, kt + (d + 1) * tile, 0.0f);
  // Blocks of 8 rows: 8 contiguous stores per d instead of one strided store per element.
  int c = 0;
  for (; c + 8 <= cols; c += 8) {
    const float* row = x + (j0 + c) * ld;
    for (int d = 0; d < HS; ++d) {
      float* dst = kt + d * tile + c;
#pragma GCC unroll 8
      for (int u = 0; u < 8; ++u) dst[u] = row[u * ld + d];
    }
  }
  for (; c < cols; ++c) {
    const float* row = x + (j0 + c) * ld;
    for (int d = 0; d < HS; ++d) kt[d * tile + c] = row[d];
  }
}

// p (rows_out, width) = rows [i0, i0 + rows) of x (stride ld, HS wide), zero-padded.
inline void pack_rows(float* p, const float* x, int64_t ld, int i0, int rows, int rows_out, int HS,
                      int width) {
  for (int r = 0; r < rows_out; ++r) {
    float* dst = p + static_cast<int64_t>(r) * width;
    int d = 0;
    if (r < rows) {
      const float* src = x + (i0 + r) * ld;
      for (; d < HS; ++d) dst[d] = src[d];
    }
    for (; d < width; ++d) dst[d] = 0.0f;
  }
}

// The bf16 path (R16): x[0 .. n) (n a multiple of the lanes), a packed operand, rounded to bf16
// values in place; else nothing.
template <class V, bool R16>
inline void round_operand(float* x, int64_t n) {
  if constexpr (R16)
    for (int64_t i = 0; i < n; i += V::kW) V::store(x + i, V::round_bf16(V::load(x + i)));
}

// out rows [0, rows) of a query tile = o / l (y rows of stride C, HS wide; o rows of hsp), and
// their lse = m + log(l): the forward's last step.
inline void write_out_rows(float* y, float* lse_row, const float* o, const float* m, const float* l,
                           int rows, int HS, int hsp, int C) {
  for (int r = 0; r < rows; ++r) {
    const float inv = 1.0f / l[r];
    for (int d = 0; d < HS; ++d) y[static_cast<int64_t>(r) * C + d] = o[r * hsp + d] * inv;
    lse_row[r] = m[r] + std::log(l[r]);
  }
}

// The backward's per-row inputs of one head: D = rowsum(dout * out) and L = lse (dO, O rows of
// stride C, HS wide); rows from T to tp get D = 0 and L = +inf, so their p = 0.
inline void backward_rows(float* D, float* L, const float* dO, const float* O, const float* lse,
                          int T, int tp, int HS, int C) {
  for (int i = 0; i < tp; ++i) {
    float acc = 0.0f;
    if (i < T)
      for (int d = 0; d < HS; ++d)
        acc += dO[i * static_cast<int64_t>(C) + d] * O[i * static_cast<int64_t>(C) + d];
    D[i] = acc;
    L[i] = i < T ? lse[i] : kInf;
  }
}

// Threaded over (b, h): each head's k^T and v are packed once and every query tile of the head
// is done by the same thread (so the packing is not repeated per tile pair); B * NH is at least
// the number of cores at every shape we train.
template <class V, int MR, int NV, bool R16>
void flash_forward(float* out, float* lse, const float* qkv, int B, int T, int C, int NH, int tile,
                   ThreadPool& pool) {
  constexpr int W = V::kW;
  tile = std::min(tile, round_up(T, 16));  // no padding past T beyond a whole vector block
  const int HS = C / NH, hsp = round_up(HS, W), nt = (T + tile - 1) / tile, tp = nt * tile;
  const float scale = 1.0f / std::sqrt(static_cast<float>(HS));
  const int64_t C3 = 3 * static_cast<int64_t>(C);
  // Per-thread scratch: the head's q (tp, HS), k^T (HS, tp), v (tp, hsp); per query tile the
  // output accumulator o (tile, hsp), scores s (tile, tile), running max m and sum l (tile).
  const size_t n_q = static_cast<size_t>(tp) * round_up(HS, 16),
               n_v = static_cast<size_t>(tp) * hsp, n_o = static_cast<size_t>(tile) * hsp,
               n_s = static_cast<size_t>(tile) * tile;
  const size_t need = 2 * n_q + n_v + n_o + n_s + 2 * static_cast<size_t>(tile);
  pool.parallel_for(
      static_cast<int64_t>(B) * NH, [&](int64_t begin, int64_t end, int) {
        float* q = thread_buffer(2, need);
        float* kt = q + n_q;
        float* vp = kt + n_q;
        float* o = vp + n_v;
        float* s = o + n_o;
        float* m = s + n_s;
        float* l = m + tile;
        for (int64_t bh = begin; bh < end; ++bh) {
          const int b = static_cast<int>(bh / NH), h = static_cast<int>(bh % NH);
          const float* x = qkv + static_cast<int64_t>(b) * T * C3 + h * HS;  // q rows, stride 3C
          pack_rows(q, x, C3, 0, T, tp, HS, HS);
          pack_transposed(kt, x + C, C3, 0, T, HS, tp);
          pack_rows(vp, x + 2 * C, C3, 0, T, tp, HS, hsp);
          round_operand<V, R16>(q, int64_t{tp} * HS);  // tp a multiple of 16
          round_operand<V, R16>(kt, int64_t{tp} * HS);
          round_operand<V, R16>(vp, int64_t{tp} * hsp);
          for (int qi = 0; qi < nt; ++qi) {
            const int i0 = qi * tile, rows = std::min(tile, T - i0);
            const float* qt = q + static_cast<int64_t>(i0) * HS;  // (tile, HS)
            std::fill(m, m + tile, -kInf);
            std::fill(l, l + tile, 0.0f);
            std::fill(o, o + n_o, 0.0f);
            for (int kj = 0; kj <= qi; ++kj) {
              const bool diag = kj == qi;
              const int j0 = kj * tile;
              // s = q k^T (tile, tile)
              tile_product<V, MR, NV>(diag ? Tri::kLowerC : Tri::kFull, tile, tile, HS, qt, HS, 1,
                                      kt + j0, tp, s, tile, true);
              for (int r = 0; r < tile; ++r) {
                const int n = row_extent<V>(r, tile, diag);
                if (diag) mask_row(s + r * tile, r, n);
                online_softmax_row<V, R16>(s + r * tile, n, tile, scale, m[r], l[r], o + r * hsp,
                                           hsp);
              }
              // o += p v (tile, hsp)
              tile_product<V, MR, NV>(diag ? Tri::kLowerA : Tri::kFull, tile, hsp, tile, s, tile, 1,
                                      vp + static_cast<int64_t>(j0) * hsp, hsp, o, hsp, false);
            }
            write_out_rows(out + (static_cast<int64_t>(b) * T + i0) * C + h * HS, lse + bh * T + i0,
                           o, m, l, rows, HS, hsp, C);
          }
        }
      });
}

template <class V, int MR, int NV, bool R16>
void flash_backward(float* dqkv, const float* dout, const float* out, const float* lse,
                    const float* qkv, int B, int T, int C, int NH, int tile, ThreadPool& pool) {
  constexpr int W = V::kW;
  tile = std::min(tile, round_up(T, 16));
  const int HS = C / NH, hsp = round_up(HS, W), nt = (T + tile - 1) / tile, tp = nt * tile;
  const float scale = 1.0f / std::sqrt(static_cast<float>(HS));
  const float ds_scale = R16 ? 1.0f : scale;  // R16: ds was scaled before it was rounded
  const int64_t C3 = 3 * static_cast<int64_t>(C);
  // Per-thread scratch: whole-head q, dout, dq (tp, hsp) and D, lse (tp); per key tile kt, vt
  // (HS, tile), k, dk, dv (tile, hsp); per tile pair s, dp (tile, tile).
  const size_t n_row = static_cast<size_t>(tp) * hsp, n_t = static_cast<size_t>(HS) * tile,
               n_k = static_cast<size_t>(tile) * hsp, n_s = static_cast<size_t>(tile) * tile;
  const size_t need = 3 * n_row + 2 * static_cast<size_t>(tp) + 2 * n_t + 3 * n_k + 2 * n_s;
  pool.parallel_for(static_cast<int64_t>(B) * NH, [&](int64_t begin, int64_t end, int) {
    float* qp = thread_buffer(2, need);
    float* dop = qp + n_row;
    float* dq = dop + n_row;
    float* Dr = dq + n_row;
    float* L = Dr + tp;
    float* kt = L + tp;
    float* vt = kt + n_t;
    float* kp = vt + n_t;
    float* dk = kp + n_k;
    float* dv = dk + n_k;
    float* s = dv + n_k;
    float* dp = s + n_s;
    for (int64_t bh = begin; bh < end; ++bh) {
      const int b = static_cast<int>(bh / NH), h = static_cast<int>(bh % NH);
      const int64_t row0 = static_cast<int64_t>(b) * T;
      const float* x = qkv + row0 * C3 + h * HS;  // q rows, stride 3C; k, v at +C, +2C
      float* dx = dqkv + row0 * C3 + h * HS;
      const float* dO = dout + row0 * C + h * HS;  // (T, HS) rows of stride C
      const float* O = out + row0 * C + h * HS;
      pack_rows(qp, x, C3, 0, T, tp, HS, hsp);
      pack_rows(dop, dO, C, 0, T, tp, HS, hsp);
      round_operand<V, R16>(qp, n_row);
      round_operand<V, R16>(dop, n_row);
      std::fill(dq, dq + n_row, 0.0f);
      backward_rows(Dr, L, dO, O, lse + bh * T, T, tp, HS, C);
      for (int kj = 0; kj < nt; ++kj) {
        const int j0 = kj * tile, cols = std::min(tile, T - j0);
        pack_transposed(kt, x + C, C3, j0, cols, HS, tile);
        pack_transposed(vt, x + 2 * C, C3, j0, cols, HS, tile);
        pack_rows(kp, x + C, C3, j0, cols, tile, HS, hsp);
        round_operand<V, R16>(kt, n_t);  // tile a multiple of 16
        round_operand<V, R16>(vt, n_t);
        round_operand<V, R16>(kp, n_k);
        std::fill(dk, dk + n_k, 0.0f);
        std::fill(dv, dv + n_k, 0.0f);
        for (int qi = kj; qi < nt; ++qi) {
          const bool diag = qi == kj;
          const int i0 = qi * tile;
          const float* qt = qp + static_cast<int64_t>(i0) * hsp;  // (tile, hsp)
          const float* dot = dop + static_cast<int64_t>(i0) * hsp;
          const Tri lower_c = diag ? Tri::kLowerC : Tri::kFull;
          // s = q k^T, dp = dout v^T (tile, tile)
          tile_product<V, MR, NV>(lower_c, tile, tile, HS, qt, hsp, 1, kt, tile, s, tile, true);
          tile_product<V, MR, NV>(lower_c, tile, tile, HS, dot, hsp, 1, vt, tile, dp, tile, true);
          // s = p = exp(s * scale - lse), dp = ds = p * (dp - D)
          for (int r = 0; r < tile; ++r) {
            const int n = row_extent<V>(r, tile, diag);
            if (diag) mask_row(s + r * tile, r, n);
            softmax_grad_row<V, R16>(s + r * tile, dp + r * tile, n, tile, scale, L[i0 + r],
                                     Dr[i0 + r]);
          }
          const Tri upper_a = diag ? Tri::kUpperA : Tri::kFull;
          // dv += p^T dout;  dk += ds^T q  (tile, hsp)
          tile_product<V, MR, NV>(upper_a, tile, hsp, tile, s, 1, tile, dot, hsp, dv, hsp, false);
          tile_product<V, MR, NV>(upper_a, tile, hsp, tile, dp, 1, tile, qt, hsp, dk, hsp, false);
          // dq += ds k  (tile, hsp)
          tile_product<V, MR, NV>(diag ? Tri::kLowerA : Tri::kFull, tile, hsp, tile, dp, tile, 1,
                                  kp, hsp, dq + static_cast<int64_t>(i0) * hsp, hsp, false);
        }
        for (int c = 0; c < cols; ++c) {
          float* dkr = dx + (j0 + c) * C3 + C;
          float* dvr = dkr + C;
          for (int d = 0; d < HS; ++d) {
            dkr[d] = dk[c * hsp + d] * ds_scale;  // written once: all query tiles are summed in dk
            dvr[d] = dv[c * hsp + d];
          }
        }
      }
      for (int i = 0; i < T; ++i)
        for (int d = 0; d < HS; ++d)
          dx[i * C3 + d] = dq[static_cast<int64_t>(i) * hsp + d] * ds_scale;
    }
  });
}
