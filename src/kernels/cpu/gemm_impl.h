// gemm_impl.h: the blocked GEMM driver and micro-kernel, written once over a vector type V and
// included by each per-ISA file (gemm_avx2.cpp, ...) inside an anonymous namespace after its
// `#pragma GCC target`, so each copy is compiled for its instruction set and stays private to it.
// V provides: T, kW (lanes), zero(), load(p), store(p, x), bcast(p), fma(a, b, c) = a*b + c, add.
// Loop structure (for each NC-column block, for each KC-deep slice):
//   1. pack B's slice into NR-wide panels [k][NR] (zero-padded), shared, in parallel over panels;
//   2. in parallel over MR-row strips of C: pack the strip of A into [k][MR] (or, for a full
//      strip of a row-major A, read it in place), then run the MR x NR micro-kernel against every
//      B panel (A strip stays in L1, B block in L2).
// Not standalone: needs GemmArgs, ThreadPool and thread_buffer declared before inclusion.

// kDirect: A is read in place, row r at Ap + r * lda (unit stride along k), instead of from a
// packed strip [k][MR]. Same products in the same order either way.
template <class V, int MR, int NV, bool kDirect = false>
inline void micro_kernel(int kc, const float* __restrict Ap, const float* __restrict Bp, float* C,
                         int64_t ldc, int mr, int nr, bool init, const float* bias,
                         int64_t lda = 0) {
  using T = typename V::T;
  constexpr int W = V::kW;
  constexpr int NR = NV * W;
  T acc[MR][NV];
#pragma GCC unroll 16
  for (int r = 0; r < MR; ++r)
#pragma GCC unroll 4
    for (int v = 0; v < NV; ++v) acc[r][v] = V::zero();
  for (int k = 0; k < kc; ++k) {
    T b[NV];
#pragma GCC unroll 4
    for (int v = 0; v < NV; ++v) b[v] = V::load(Bp + k * NR + v * W);
#pragma GCC unroll 16
    for (int r = 0; r < MR; ++r) {
      const T a = kDirect ? V::bcast(Ap + r * lda + k) : V::bcast(Ap + k * MR + r);
#pragma GCC unroll 4
      for (int v = 0; v < NV; ++v) acc[r][v] = V::fma(a, b[v], acc[r][v]);
    }
  }
  if (mr == MR && nr == NR) {
    if (init) {
      T bb[NV];
#pragma GCC unroll 4
      for (int v = 0; v < NV; ++v) bb[v] = bias ? V::load(bias + v * W) : V::zero();
#pragma GCC unroll 16
      for (int r = 0; r < MR; ++r)
#pragma GCC unroll 4
        for (int v = 0; v < NV; ++v) V::store(C + r * ldc + v * W, V::add(bb[v], acc[r][v]));
    } else {
#pragma GCC unroll 16
      for (int r = 0; r < MR; ++r)
#pragma GCC unroll 4
        for (int v = 0; v < NV; ++v) {
          float* c = C + r * ldc + v * W;
          V::store(c, V::add(V::load(c), acc[r][v]));
        }
    }
    return;
  }
  // Edge tile: spill the accumulators and add the valid part only.
  // (Fully unrolled, like every loop over acc, so acc stays in registers in the main loop.)
  alignas(64) float tile[MR * NR];
#pragma GCC unroll 16
  for (int r = 0; r < MR; ++r)
#pragma GCC unroll 4
    for (int v = 0; v < NV; ++v) V::store(tile + r * NR + v * W, acc[r][v]);
  for (int r = 0; r < mr; ++r)
    for (int j = 0; j < nr; ++j) {
      float* c = C + r * ldc + j;
      *c = init ? (bias ? bias[j] : 0.0f) + tile[r * NR + j] : *c + tile[r * NR + j];
    }
}

// Ap[k * MR + r] = A[i0 + r][p0 + k], rows past mr zero.
template <int MR>
inline void pack_a_strip(float* __restrict Ap, const GemmArgs& g, int i0, int mr, int p0, int kc) {
  const float* a = g.A + i0 * g.rs_a + p0 * g.cs_a;
  if (g.cs_a == 1) {
    for (int r = 0; r < mr; ++r) {
      const float* row = a + r * g.rs_a;
      for (int k = 0; k < kc; ++k) Ap[k * MR + r] = row[k];
    }
  } else if (g.rs_a == 1 && mr == MR) {  // columns of MR contiguous floats: fixed-length copies
    for (int k = 0; k < kc; ++k) {
      const float* col = a + k * g.cs_a;
#pragma GCC unroll 16
      for (int r = 0; r < MR; ++r) Ap[k * MR + r] = col[r];
    }
  } else {
    for (int k = 0; k < kc; ++k) {
      const float* col = a + k * g.cs_a;
      for (int r = 0; r < mr; ++r) Ap[k * MR + r] = col[r * g.rs_a];
    }
  }
  for (int k = 0; k < kc; ++k)
    for (int r = mr; r < MR; ++r) Ap[k * MR + r] = 0.0f;
}

// Bp[k * NR + j] = B[p0 + k][j0 + j], columns past nr zero.
template <int NR>
inline void pack_b_panel(float* __restrict Bp, const GemmArgs& g, int p0, int kc, int j0, int nr) {
  const float* b = g.B + p0 * g.rs_b + j0 * g.cs_b;
  if (g.cs_b == 1 && nr == NR) {  // full panel: fixed-length row copies (no memcpy calls)
    for (int k = 0; k < kc; ++k) {
      const float* row = b + k * g.rs_b;
      float* dst = Bp + k * NR;
#pragma GCC unroll 64
      for (int j = 0; j < NR; ++j) dst[j] = row[j];
    }
  } else if (g.cs_b == 1) {
    for (int k = 0; k < kc; ++k) {
      const float* row = b + k * g.rs_b;
      float* dst = Bp + k * NR;
      for (int j = 0; j < nr; ++j) dst[j] = row[j];
      for (int j = nr; j < NR; ++j) dst[j] = 0.0f;
    }
  } else {
    for (int j = 0; j < nr; ++j) {
      const float* col = b + j * g.cs_b;
      for (int k = 0; k < kc; ++k) Bp[k * NR + j] = col[k * g.rs_b];
    }
    for (int k = 0; k < kc; ++k)
      for (int j = nr; j < NR; ++j) Bp[k * NR + j] = 0.0f;
  }
}

template <class V, int MR, int NV, int KC, int NC>
void gemm_blocked(const GemmArgs& g, ThreadPool& pool) {
  constexpr int NR = NV * V::kW;
  static_assert(NC % NR == 0, "NC must be a multiple of NR");
  if (g.M <= 0 || g.N <= 0) return;
  if (g.K <= 0) {  // empty product: only the bias (or zero) to write
    if (g.init)
      for (int i = 0; i < g.M; ++i)
        for (int j = 0; j < g.N; ++j) g.C[i * g.ldc + j] = g.bias ? g.bias[j] : 0.0f;
    return;
  }
  const int m_strips = (g.M + MR - 1) / MR;
  for (int jc = 0; jc < g.N; jc += NC) {
    const int nc = g.N - jc < NC ? g.N - jc : NC;
    const int n_panels = (nc + NR - 1) / NR;
    for (int pc = 0; pc < g.K; pc += KC) {
      const int kc = g.K - pc < KC ? g.K - pc : KC;
      float* Bp = thread_buffer(0, static_cast<size_t>(n_panels) * KC * NR);
      pool.parallel_for(n_panels, [&](int64_t b, int64_t e, int) {
        for (int64_t p = b; p < e; ++p) {
          const int j0 = jc + static_cast<int>(p) * NR;
          const int nr = g.N - j0 < NR ? g.N - j0 : NR;
          pack_b_panel<NR>(Bp + p * kc * NR, g, pc, kc, j0, nr);
        }
      });
      const bool init = g.init && pc == 0;
      pool.parallel_for(m_strips, [&](int64_t b, int64_t e, int) {
        float* Ap = thread_buffer(1, static_cast<size_t>(MR) * KC);
        for (int64_t s = b; s < e; ++s) {
          const int i0 = static_cast<int>(s) * MR;
          const int mr = g.M - i0 < MR ? g.M - i0 : MR;
          // The k range of this slice where the strip's A can be nonzero.
          int k_lo = pc, k_hi = pc + kc;
          if (g.a_tri == GemmArgs::kLower && k_hi > i0 + mr) k_hi = i0 + mr;
          if (g.a_tri == GemmArgs::kUpper && k_lo < i0) k_lo = i0;
          const int kn = k_hi > k_lo ? k_hi - k_lo : 0;
          // Full strips of a row-major A are read in place (packing them costs more than it
          // saves); other strips are packed, zero-padded to MR rows.
          const bool direct = g.cs_a == 1 && mr == MR;
          const float* a_strip = g.A + i0 * g.rs_a + k_lo;
          if (!direct) pack_a_strip<MR>(Ap, g, i0, mr, k_lo, kn);
          float* c_row = g.C + i0 * g.ldc;
          for (int p = 0; p < n_panels; ++p) {
            const int j0 = jc + p * NR;
            if (g.lower_c && j0 > i0 + mr - 1) break;  // this tile and the rest: above diagonal
            const int nr = g.N - j0 < NR ? g.N - j0 : NR;
            const float* bp = Bp + (p * kc + (kn ? k_lo - pc : 0)) * NR;
            const float* bias = g.bias ? g.bias + j0 : nullptr;
            if (direct)
              micro_kernel<V, MR, NV, true>(kn, a_strip, bp, c_row + j0, g.ldc, mr, nr, init, bias,
                                            g.rs_a);
            else
              micro_kernel<V, MR, NV>(kn, Ap, bp, c_row + j0, g.ldc, mr, nr, init, bias);
          }
        }
      });
    }
  }
}
