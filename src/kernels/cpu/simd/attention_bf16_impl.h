// attention_bf16_impl.h: one head's products of the stored attention (cpu::attention_*,
// attention.cpp's HeadProducts) in bf16, where T and HS are whole vectors of P (16 lanes: the
// vdpbf16ps unit) and the head fits in L2 (T <= 256). The GEMM packs a strip of A and panels of B
// per call and tiles them 12 x 32; here each operand is converted once to pair words in the layout
// its product reads whole, and the tiles follow the causal triangle closely (4 or 8 rows). The sums
// are the GEMM's: from 0, pair by pair in k order, odd before even (P::dot); pairs skipped by the
// triangle hold only zeros, which change no sum. So the bits are gemm_bf16's (and ref::gemm_bf16's
// where P rounds as the twin does): cpu_bf16_test checks both, with PairsPlain<16> standing in for
// vdpbf16ps on a CPU without it.
// Included at the end of gemm_bf16_impl.h (needs its pair converters and PairsPlain).

// Where a product's pair words lie: A's word (i, p) at a[i * a_row + p * a_pair] (a row's pairs
// side by side, or a pair's rows side by side: no transpose either way, A is broadcast a word at a
// time); B's pair p, column j at b[p * b_pair + j] (a pair's columns side by side: loaded as
// vectors).
struct HeadPairs {
  const uint32_t* a;
  int64_t a_row, a_pair;
  const uint32_t* b;
  int64_t b_pair;
};

// C rows i0 .. i0 + MR - 1, columns j0 .. j0 + NV W - 1 = the sums over pairs [p0, p1), started
// from 0, or from C (ACC: C += the sums, the fused attention's accumulators).
template <class P, int MR, int NV, bool ACC = false>
inline void head_tile(const HeadPairs& o, int i0, int j0, int p0, int p1, float* c, int64_t ldc) {
  using T = typename P::T;
  constexpr int W = P::kW;
  T acc[MR][NV];
#pragma GCC unroll 8
  for (int r = 0; r < MR; ++r)
#pragma GCC unroll 4
    for (int v = 0; v < NV; ++v)
      acc[r][v] = ACC ? P::load(c + (i0 + r) * ldc + j0 + v * W) : P::zero();
  const uint32_t* a = o.a + i0 * o.a_row;
  for (int p = p0; p < p1; ++p) {
    T b[NV];
#pragma GCC unroll 4
    for (int v = 0; v < NV; ++v) b[v] = P::words(o.b + p * o.b_pair + j0 + v * W);
#pragma GCC unroll 8
    for (int r = 0; r < MR; ++r) {
      const T w = P::bcast_word(a + r * o.a_row + p * o.a_pair);
#pragma GCC unroll 4
      for (int v = 0; v < NV; ++v) acc[r][v] = P::dot(acc[r][v], w, b[v]);
    }
  }
#pragma GCC unroll 8
  for (int r = 0; r < MR; ++r)
#pragma GCC unroll 4
    for (int v = 0; v < NV; ++v) P::store(c + (i0 + r) * ldc + j0 + v * W, acc[r][v]);
}

// C rows i0 .. i0 + MR - 1, columns 0 .. n_vec W - 1, in tiles of up to NVMAX vectors.
template <class P, int MR, int NVMAX, bool ACC = false>
inline void head_row_tiles(const HeadPairs& o, int i0, int n_vec, int p0, int p1, float* c,
                           int64_t ldc) {
  constexpr int W = P::kW;
  int v = 0;
  for (; v + NVMAX <= n_vec; v += NVMAX) head_tile<P, MR, NVMAX, ACC>(o, i0, v * W, p0, p1, c, ldc);
  const int rest = n_vec - v;
  if constexpr (NVMAX > 3)
    if (rest == 3) return head_tile<P, MR, 3, ACC>(o, i0, v * W, p0, p1, c, ldc);
  if constexpr (NVMAX > 2)
    if (rest == 2) return head_tile<P, MR, 2, ACC>(o, i0, v * W, p0, p1, c, ldc);
  if (rest == 1) head_tile<P, MR, 1, ACC>(o, i0, v * W, p0, p1, c, ldc);
}

// s (rows, .) = the scores A B^T on words o (A by rows, B by columns), in strips of 4 rows: causal,
// each strip's columns only up to the vector holding its diagonal, else n_vec vectors of them.
template <class P>
inline void strip_scores(float* s, int64_t lds, const HeadPairs& o, int rows, int n_vec, int np,
                         bool causal) {
  constexpr int MR = 4, W = P::kW;
  for (int i0 = 0; i0 < rows; i0 += MR)
    head_row_tiles<P, MR, 4>(o, i0, causal ? (i0 + MR + W - 1) / W : n_vec, 0, np, s, lds);
}

// c (rows, n_vec W) = A B on words o, or += (ACC), in strips of MR rows; with A zero above its
// diagonal (lower) a strip's pairs end with its last row's, with A zero below it (upper) they
// start with its first row's, else all np of them.
template <class P, int MR, bool ACC>
inline void strip_products(float* c, int64_t ldc, const HeadPairs& o, int rows, int n_vec, int np,
                           bool lower, bool upper) {
  for (int i0 = 0; i0 < rows; i0 += MR)
    head_row_tiles<P, MR, 16 / MR, ACC>(o, i0, n_vec, upper ? i0 / 2 : 0,
                                        lower ? (i0 + MR) / 2 : np, c, ldc);
}

// s (T, T) = a b^T on and below the diagonal, a and b (T, HS) rows of strides lda and ldb; above
// it s is written up to the end of the diagonal's vector. T and HS multiples of P::kW.
template <class P>
void head_scores_bf16(float* s, const float* a, int64_t lda, const float* b, int64_t ldb, int T,
                      int HS) {
  const int np = HS / 2;
  // a's rows in pairs (T, HS / 2); b^T's pairs (HS / 2, T): four rows of b at a time, transposed.
  auto* aw = reinterpret_cast<uint32_t*>(thread_buffer(0, size_t{1} * T * np));
  auto* bw = reinterpret_cast<uint32_t*>(thread_buffer(1, size_t{1} * T * np));
  for (int t = 0; t < T; ++t) pair_words_row(aw + t * np, a + t * lda, np);
  for (int t = 0; t < T; t += 4) pair_along_rows<4>(bw + t, T, b + t * ldb, ldb, np);
  strip_scores<P>(s, T, {aw, np, 1, bw, T}, T, T / P::kW, np, true);
}

// c (T, HS) = A (T, T) b (T, HS), b rows of stride ldb, c of ldc, and A either zero above its
// diagonal, read by rows (upper = false: A(i, k) = A[i * rs_a + k], cs_a = 1) or zero below it,
// read by columns (upper = true: A(i, k) = A[k * cs_a + i], rs_a = 1): attention.cpp's four
// products. A strip of MR rows reads only the pairs its triangle can make nonzero, and A's entries
// only up to MR - 1 past its diagonal (attention.cpp keeps 15 past it zero: kMaskBand). Tiles of
// 16 accumulators: 8 rows by 2 vectors (HS = 32), else 4 by 4.
template <class P, int MR>
void head_mix_strips(bool upper, float* c, int64_t ldc, const float* A, int64_t rs_a, int64_t cs_a,
                     const float* b, int64_t ldb, int T, int HS) {
  const int np = T / 2;
  auto* aw = reinterpret_cast<uint32_t*>(thread_buffer(0, size_t{1} * T * np));
  auto* bw = reinterpret_cast<uint32_t*>(thread_buffer(1, size_t{1} * np * HS));
  for (int q = 0; q < np; ++q)  // (T / 2, HS): b's rows 2q and 2q + 1 interleaved
    pair_rows(bw + q * HS, b + 2 * q * ldb, b + (2 * q + 1) * ldb, HS);
  HeadPairs o{aw, 0, 0, bw, HS};
  if (!upper) {  // (T, T / 2): row i's pairs, up to those of its strip's last row
    o.a_row = np, o.a_pair = 1;
    for (int i = 0; i < T; ++i) pair_words_row(aw + i * np, A + i * rs_a, (i / MR + 1) * MR / 2);
  } else {  // (T / 2, T): the array's rows 2q and 2q + 1 interleaved, up to MR - 1 past 2q
    o.a_row = 1, o.a_pair = T;
    for (int q = 0; q < np; ++q)
      pair_rows(aw + q * T, A + 2 * q * cs_a, A + (2 * q + 1) * cs_a,
                2 * q + MR < T ? 2 * q + MR : T);
  }
  strip_products<P, MR, false>(c, ldc, o, T, HS / P::kW, np, !upper, upper);
}

template <class P>
void head_mix_bf16(bool upper, float* c, int64_t ldc, const float* A, int64_t rs_a, int64_t cs_a,
                   const float* b, int64_t ldb, int T, int HS) {
  if (HS <= 2 * P::kW)
    head_mix_strips<P, 8>(upper, c, ldc, A, rs_a, cs_a, b, ldb, T, HS);
  else
    head_mix_strips<P, 4>(upper, c, ldc, A, rs_a, cs_a, b, ldb, T, HS);
}
