// flash_attention_bf16_impl.h: the fused attention of flash_attention.h in bf16 on vdpbf16ps
// (flash_attention_bf16_avx512.cpp, AVX512_BF16 in its target; flash_attention.cpp calls it at the
// AVX-512 level on a CPU that has it). The same tiles, row passes and order of work as
// flash_attention_impl.h's R16 path, which rounds the same values (its twin,
// ref::flash_attention_*_bf16, holds for both); the products run on attention_bf16_impl.h's pair
// tiles instead of FMAs on rounded floats, each operand converted to bf16 pair words once in the
// layout its product reads: q and dout by rows (the scores) and by pairs of rows (dk, dv), k and
// v transposed per key tile (the scores) and k by pairs of rows (dq), p and ds per tile pair.
// The sums run pair by pair, odd before even. Written over P (pair operations) and V (the row
// passes' vectors); included by the generated units after vec_<isa>.h.
#include "kernels/cpu/simd/flash_attention_impl.h"
#include "kernels/cpu/simd/gemm_bf16_impl.h"

// words[0 .. width) = the pairs of x[0 .. n) (n may be odd: the last pair's odd half 0), zeros past
// them; all zeros when x is null (a row past T).
inline void pair_words_padded(uint32_t* words, const float* x, int n, int width) {
  int q = 0;
  if (x) {
    pair_words_row(words, x, n / 2);
    q = n / 2;
    if (n % 2) words[q++] = bf16_pair(x[n - 1], 0.0f);
  }
  for (; q < width; ++q) words[q] = 0;
}

// words (rows / 2, width): row q = the pairs (x_2q[d], x_2q+1[d]) of rows 2q and 2q + 1 of x
// (stride ld) for d < n, zeros past n; rows from `valid` on read as `zeros` (n floats of 0).
inline void pair_row_pairs(uint32_t* words, const float* x, int64_t ld, int valid, int rows, int n,
                           int width, const float* zeros) {
  for (int q = 0; q < rows / 2; ++q) {
    uint32_t* w = words + int64_t{q} * width;
    pair_rows(w, 2 * q < valid ? x + 2 * q * ld : zeros,
              2 * q + 1 < valid ? x + (2 * q + 1) * ld : zeros, n);
    for (int d = n; d < width; ++d) w[d] = 0;
  }
}

// words (np, width): word (p, j) = the pair (x_j[2p], x_j[2p + 1]) of row j < cols of x (stride
// ld, n floats, n may be odd), zeros past cols and past n: rows of x transposed, in pairs.
inline void pair_cols(uint32_t* words, const float* x, int64_t ld, int cols, int n, int np,
                      int width) {
  const int whole = n / 2;
  int j = 0;
  for (; j + 4 <= cols; j += 4) pair_along_rows<4>(words + j, width, x + j * ld, ld, whole);
  for (; j < cols; ++j) pair_along(words + j, width, x + j * ld, whole);
  for (int p = 0; p < np; ++p) {
    uint32_t* w = words + int64_t{p} * width;
    if (p >= whole)
      for (int c = 0; c < cols; ++c)
        w[c] = p == whole && n % 2 ? bf16_pair(x[c * ld + n - 1], 0) : 0;
    for (int c = cols; c < width; ++c) w[c] = 0;
  }
}

// c (tile, hsp) += A (tile, tile) B (tile, hsp) on words o (A by rows or by pairs of its rows, B by
// pairs of rows); tri: on the diagonal tile, A zero above its diagonal (kLowerA) or below it
// (kUpperA). Tiles of 16 accumulators: 8 rows x 2 vectors (hsp <= 32), else 4 x 4.
template <class P>
inline void tile_mix(float* c, const HeadPairs& o, int tile, int hsp, Tri tri) {
  const bool lower = tri == Tri::kLowerA, upper = tri == Tri::kUpperA;
  if (hsp <= 2 * P::kW)
    strip_products<P, 8, true>(c, hsp, o, tile, hsp / P::kW, tile / 2, lower, upper);
  else
    strip_products<P, 4, true>(c, hsp, o, tile, hsp / P::kW, tile / 2, lower, upper);
}

// A head's sizes: the tile (clamped to T rounded up to 16), HS padded to whole vectors of W
// (hsp) and its nd pairs, nt tiles over tp rows (T padded), th pairs a tile, the scale, 3C.
struct PairTiling {
  int tile, HS, hsp, nd, nt, tp, th;
  float scale;
  int64_t C3;
  PairTiling(int T, int C, int NH, int tile_, int W)
      : tile(std::min(tile_, round_up(T, 16))),
        HS(C / NH),
        hsp(round_up(HS, W)),
        nd(hsp / 2),
        nt((T + tile - 1) / tile),
        tp(nt * tile),
        th(tile / 2),
        scale(1.0f / std::sqrt(static_cast<float>(HS))),
        C3(3 * static_cast<int64_t>(C)) {}
};

template <class P, class V>
void flash_forward_bf16(float* out, float* lse, const float* qkv, int B, int T, int C, int NH,
                        int tile, ThreadPool& pool) {
  const PairTiling z(T, C, NH, tile, P::kW);
  const int HS = z.HS, hsp = z.hsp, nd = z.nd, nt = z.nt, tp = z.tp, th = z.th;
  const float scale = z.scale;
  const int64_t C3 = z.C3;
  tile = z.tile;
  // Per-thread scratch, in words or floats: the head's q by rows (tp, nd), k^T (nd, tp), v by
  // pairs of rows (tp / 2, hsp); per tile pair p by rows (tile, th); per query tile the output
  // accumulator o (tile, hsp), the scores s (tile, tile), the running max m and sum l (tile).
  const size_t n_qk = size_t{1} * tp * nd, n_v = size_t{1} * tp / 2 * hsp,
               n_p = size_t{1} * tile * th, n_o = size_t{1} * tile * hsp,
               n_s = size_t{1} * tile * tile;
  const size_t need = 2 * n_qk + n_v + n_p + n_o + n_s + 2 * size_t{1} * tile + hsp;
  pool.parallel_for(static_cast<int64_t>(B) * NH, [&](int64_t begin, int64_t end, int) {
    float* base = thread_buffer(2, need);
    auto* qw = reinterpret_cast<uint32_t*>(base);
    uint32_t* kt = qw + n_qk;
    uint32_t* vi = kt + n_qk;
    uint32_t* pw = vi + n_v;
    float* o = reinterpret_cast<float*>(pw + n_p);
    float* s = o + n_o;
    float* m = s + n_s;
    float* l = m + tile;
    float* zeros = l + tile;
    std::fill(zeros, zeros + hsp, 0.0f);
    for (int64_t bh = begin; bh < end; ++bh) {
      const int b = static_cast<int>(bh / NH), h = static_cast<int>(bh % NH);
      const float* x = qkv + static_cast<int64_t>(b) * T * C3 + h * HS;  // q rows, stride 3C
      for (int t = 0; t < tp; ++t)
        pair_words_padded(qw + t * nd, t < T ? x + t * C3 : nullptr, HS, nd);
      pair_cols(kt, x + C, C3, T, HS, nd, tp);
      pair_row_pairs(vi, x + 2 * C, C3, T, tp, HS, hsp, zeros);
      for (int qi = 0; qi < nt; ++qi) {
        const int i0 = qi * tile, rows = std::min(tile, T - i0);
        std::fill(m, m + tile, -kInf);
        std::fill(l, l + tile, 0.0f);
        std::fill(o, o + n_o, 0.0f);
        for (int kj = 0; kj <= qi; ++kj) {
          const bool diag = kj == qi;
          const int j0 = kj * tile;
          // s = q k^T
          strip_scores<P>(s, tile, {qw + int64_t{i0} * nd, nd, 1, kt + j0, tp}, tile, tile / P::kW,
                          nd, diag);
          for (int r = 0; r < tile; ++r) {
            const int n = row_extent<V>(r, tile, diag);
            if (diag) mask_row(s + r * tile, r, n);
            online_softmax_row<V, false>(s + r * tile, n, tile, scale, m[r], l[r], o + r * hsp,
                                         hsp);
            pair_words_row(pw + r * th, s + r * tile, th);  // p rounded to bf16 here
          }
          // o += p v (tile, hsp)
          tile_mix<P>(o, {pw, th, 1, vi + int64_t{j0 / 2} * hsp, hsp}, tile, hsp,
                      diag ? Tri::kLowerA : Tri::kFull);
        }
        write_out_rows(out + (static_cast<int64_t>(b) * T + i0) * C + h * HS, lse + bh * T + i0, o,
                       m, l, rows, HS, hsp, C);
      }
    }
  });
}

template <class P, class V>
void flash_backward_bf16(float* dqkv, const float* dout, const float* out, const float* lse,
                         const float* qkv, int B, int T, int C, int NH, int tile,
                         ThreadPool& pool) {
  const PairTiling z(T, C, NH, tile, P::kW);
  const int HS = z.HS, hsp = z.hsp, nd = z.nd, nt = z.nt, tp = z.tp, th = z.th;
  const float scale = z.scale;
  const int64_t C3 = z.C3;
  tile = z.tile;
  // Per-thread scratch, in words or floats: the head's q and dout by rows (tp, nd) and by pairs of
  // rows (tp / 2, hsp), dq (tp, hsp), D and lse (tp); per key tile k^T and v^T (nd, tile), k by
  // pairs of rows (th, hsp), dk and dv (tile, hsp); per tile pair s and dp (tile, tile), p and ds
  // by pairs of rows (th, tile), ds by rows (tile, th).
  const size_t n_rw = size_t{1} * tp * nd, n_rp = size_t{1} * tp / 2 * hsp,
               n_row = size_t{1} * tp * hsp, n_t = size_t{1} * nd * tile,
               n_kp = size_t{1} * th * hsp, n_k = size_t{1} * tile * hsp,
               n_s = size_t{1} * tile * tile, n_sw = size_t{1} * tile * th;
  const size_t need = 2 * n_rw + 2 * n_rp + n_row + 2 * size_t{1} * tp + 2 * n_t + n_kp + 2 * n_k +
                      2 * n_s + 3 * n_sw + hsp;
  pool.parallel_for(static_cast<int64_t>(B) * NH, [&](int64_t begin, int64_t end, int) {
    float* base = thread_buffer(2, need);
    auto* qw = reinterpret_cast<uint32_t*>(base);
    uint32_t* dow = qw + n_rw;
    uint32_t* qi2 = dow + n_rw;
    uint32_t* doi = qi2 + n_rp;
    float* dq = reinterpret_cast<float*>(doi + n_rp);
    float* Dr = dq + n_row;
    float* L = Dr + tp;
    auto* kt = reinterpret_cast<uint32_t*>(L + tp);
    uint32_t* vt = kt + n_t;
    uint32_t* ki = vt + n_t;
    float* dk = reinterpret_cast<float*>(ki + n_kp);
    float* dv = dk + n_k;
    float* s = dv + n_k;
    float* dp = s + n_s;
    auto* pi = reinterpret_cast<uint32_t*>(dp + n_s);
    uint32_t* dsi = pi + n_sw;
    uint32_t* dsw = dsi + n_sw;
    float* zeros = reinterpret_cast<float*>(dsw + n_sw);
    std::fill(zeros, zeros + hsp, 0.0f);
    for (int64_t bh = begin; bh < end; ++bh) {
      const int b = static_cast<int>(bh / NH), h = static_cast<int>(bh % NH);
      const int64_t row0 = static_cast<int64_t>(b) * T;
      const float* x = qkv + row0 * C3 + h * HS;  // q rows, stride 3C; k, v at +C, +2C
      float* dx = dqkv + row0 * C3 + h * HS;
      const float* dO = dout + row0 * C + h * HS;  // (T, HS) rows of stride C
      const float* O = out + row0 * C + h * HS;
      for (int t = 0; t < tp; ++t) {
        pair_words_padded(qw + t * nd, t < T ? x + t * C3 : nullptr, HS, nd);
        pair_words_padded(dow + t * nd, t < T ? dO + t * C : nullptr, HS, nd);
      }
      pair_row_pairs(qi2, x, C3, T, tp, HS, hsp, zeros);
      pair_row_pairs(doi, dO, C, T, tp, HS, hsp, zeros);
      std::fill(dq, dq + n_row, 0.0f);
      backward_rows(Dr, L, dO, O, lse + bh * T, T, tp, HS, C);
      for (int kj = 0; kj < nt; ++kj) {
        const int j0 = kj * tile, cols = std::min(tile, T - j0);
        const float* k = x + C + j0 * C3;
        pair_cols(kt, k, C3, cols, HS, nd, tile);
        pair_cols(vt, x + 2 * C + j0 * C3, C3, cols, HS, nd, tile);
        pair_row_pairs(ki, k, C3, cols, tile, HS, hsp, zeros);
        std::fill(dk, dk + n_k, 0.0f);
        std::fill(dv, dv + n_k, 0.0f);
        for (int qi = kj; qi < nt; ++qi) {
          const bool diag = qi == kj;
          const int i0 = qi * tile;
          // s = q k^T, dp = dout v^T (tile, tile)
          strip_scores<P>(s, tile, {qw + int64_t{i0} * nd, nd, 1, kt, tile}, tile, tile / P::kW, nd,
                          diag);
          strip_scores<P>(dp, tile, {dow + int64_t{i0} * nd, nd, 1, vt, tile}, tile, tile / P::kW,
                          nd, diag);
          // s = bf16(p), p = exp(s * scale - lse); dp = bf16(ds * scale), ds = p * (dp - D)
          for (int r = 0; r < tile; ++r) {
            const int n = row_extent<V>(r, tile, diag);
            if (diag) mask_row(s + r * tile, r, n);
            softmax_grad_row<V, true>(s + r * tile, dp + r * tile, n, tile, scale, L[i0 + r],
                                      Dr[i0 + r]);
            pair_words_row(dsw + r * th, dp + r * tile, th);
          }
          pair_row_pairs(pi, s, tile, tile, tile, tile, tile, zeros);
          pair_row_pairs(dsi, dp, tile, tile, tile, tile, tile, zeros);
          const Tri upper_a = diag ? Tri::kUpperA : Tri::kFull;
          // dv += p^T dout;  dk += ds^T q  (tile, hsp): A(j, t) = p[t][j], by pairs of rows of p
          tile_mix<P>(dv, {pi, 1, tile, doi + int64_t{i0 / 2} * hsp, hsp}, tile, hsp, upper_a);
          tile_mix<P>(dk, {dsi, 1, tile, qi2 + int64_t{i0 / 2} * hsp, hsp}, tile, hsp, upper_a);
          // dq += ds k  (tile, hsp)
          tile_mix<P>(dq + int64_t{i0} * hsp, {dsw, th, 1, ki, hsp}, tile, hsp,
                      diag ? Tri::kLowerA : Tri::kFull);
        }
        for (int c = 0; c < cols; ++c) {  // ds was scaled before it was rounded: no scale here
          float* dkr = dx + (j0 + c) * C3 + C;
          float* dvr = dkr + C;
          for (int d = 0; d < HS; ++d) {
            dkr[d] = dk[c * hsp + d];
            dvr[d] = dv[c * hsp + d];
          }
        }
      }
      for (int i = 0; i < T; ++i)
        for (int d = 0; d < HS; ++d) dx[i * C3 + d] = dq[static_cast<int64_t>(i) * hsp + d];
    }
  });
}
