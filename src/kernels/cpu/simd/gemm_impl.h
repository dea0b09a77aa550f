// gemm_impl.h: the blocked GEMM driver over the micro-kernel of micro_kernel_impl.h, written once
// over a vector type V and included by each per-ISA file (gemm_avx2.cpp, ...) inside an anonymous
// namespace after its `SG_TARGET_BEGIN`, so each copy is compiled for its instruction set and
// stays private to it.
// V provides: T, kW (lanes), zero(), load(p), store(p, x), bcast(p), fma(a, b, c) = a*b + c, add.
// Loop structure, many rows (for each NC-column block, for each KC-deep slice):
//   1. pack B's slice into NR-wide panels [k][NR] (zero-padded), shared, in parallel over panels;
//   2. in parallel over MR-row strips of C: pack the strip of A into [k][MR] (or read it in place
//      when its layout allows), then run the MR x NR micro-kernel against every B panel (A strip
//      stays in L1, B block in L2).
// Few rows (M <= 512, e.g. GPT-2 at B*T = 256): for each KC slice, threads take groups of panels,
// pack them themselves and run every strip against them. A small row-major B is read in place.
// Either way each C element is reduced by one thread, k in order: the same bits for any threads.
// Not standalone: needs GemmArgs, ThreadPool, thread_buffer and l2_cache_bytes declared before
// inclusion.

#include "kernels/cpu/simd/micro_kernel_impl.h"

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

// A column-major A (unit stride along rows: dweight's dout^T) with a column stride of at least
// kColsInPlaceMaxStride floats is packed, not read in place (strip_times_panels says why); with
// one of at least kGroupMinStride (a 4 KiB page), kStripGroup strips at a time
// (strips_times_panels).
constexpr int64_t kColsInPlaceMaxStride = 256;
constexpr int64_t kGroupMinStride = 1024;
constexpr int kStripGroup = 8;

// Strips s_first .. s_first + ns - 1 of a column-major A (rs_a == 1), packed one after another:
// strip q at Ap + q * kc * MR, each [k][MR] as pack_a_strip writes it, rows past M zero. Each k
// reads ns * MR contiguous floats of one column of A (a row of dout) instead of MR.
template <int MR>
inline void pack_a_strips(float* __restrict Ap, const GemmArgs& g, int s_first, int ns, int p0,
                          int kc) {
  const int i_first = s_first * MR;
  const int rows = g.M - i_first < ns * MR ? g.M - i_first : ns * MR;
  for (int k = 0; k < kc; ++k) {
    const float* col = g.A + i_first + (p0 + k) * g.cs_a;
    for (int q = 0; q < ns; ++q) {
      float* dst = Ap + int64_t{q} * kc * MR + k * MR;
      const int r0 = q * MR;
      if (r0 + MR <= rows) {
#pragma GCC unroll 16
        for (int r = 0; r < MR; ++r) dst[r] = col[r0 + r];
      } else {
        for (int r = 0; r < MR; ++r) dst[r] = r0 + r < rows ? col[r0 + r] : 0.0f;
      }
    }
  }
}

// Bp[k * NR + j] = B[p0 + k][j0 + j], columns past nr zero.
template <class V, int NR>
inline void pack_b_panel(float* __restrict Bp, const GemmArgs& g, int p0, int kc, int j0, int nr) {
  const float* b = g.B + p0 * g.rs_b + j0 * g.cs_b;
  if constexpr (V::kTranspose8 && NR % 8 == 0) {
    if (g.rs_b == 1 && nr == NR) {
      // B = W^T (the forward): column j of B is a contiguous row of W; transposing 8 x 8 blocks in
      // registers beats the element loop below (GPT-2 forward: packing 15% -> ~4% of the time).
      int k = 0;
      for (; k + 8 <= kc; k += 8)
        for (int j = 0; j < NR; j += 8)
          V::transpose8(b + j * g.cs_b + k, g.cs_b, Bp + k * NR + j, NR);
      for (; k < kc; ++k)
        for (int j = 0; j < NR; ++j) Bp[k * NR + j] = b[j * g.cs_b + k];
      return;
    }
  }
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

// One MR-row strip of C (strip s) times np consecutive NR-wide panels starting at column j_first,
// for the K slice [pc, pc + kc). Packed panels are at Bp + q * kc * NR (q < np); with direct_b,
// full panels are read from B in place instead. Ap: this thread's strip buffer.
// a_packed: Ap already holds the strip, packed (pack_a_strips).
template <class V, int MR, int NV>
void strip_times_panels(const GemmArgs& g, int s, int j_first, int np, int pc, int kc,
                        const float* Bp, bool direct_b, float* Ap, bool a_packed = false) {
  constexpr int NR = NV * V::kW;
  const int i0 = s * MR;
  const int mr = g.M - i0 < MR ? g.M - i0 : MR;
  // The k range of this slice where the strip's A can be nonzero.
  int k_lo = pc, k_hi = pc + kc;
  if (g.a_tri == GemmArgs::kLower && k_hi > i0 + mr) k_hi = i0 + mr;
  if (g.a_tri == GemmArgs::kUpper && k_lo < i0) k_lo = i0;
  const int kn = k_hi > k_lo ? k_hi - k_lo : 0;
  // Full strips whose A is row-major (unit stride along k) are read in place: packing them costs
  // more than it saves. So are column-major ones (unit stride along rows: dweight's dout^T) with
  // a short column stride; with a long one (OC >= 256 floats) each k of the strip is a new cache
  // line, far apart, and re-reading them for every panel cost more than packing the strip once
  // (dweight on one core, packed / in place: OC = 384 0.93, OC = 512 0.85, OC = 1536 0.72, GPT-2's
  // 2304-wide 0.76; OC = 128 read in place was 3% faster). Other strips are packed, zero-padded to
  // MR rows.
  const AMode mode = mr != MR || a_packed                            ? AMode::kPacked
                     : g.cs_a == 1                                   ? AMode::kRows
                     : g.rs_a == 1 && g.cs_a < kColsInPlaceMaxStride ? AMode::kCols
                                                                     : AMode::kPacked;
  if (mode == AMode::kPacked && !a_packed) pack_a_strip<MR>(Ap, g, i0, mr, k_lo, kn);
  const float* a = mode == AMode::kPacked ? Ap : g.A + i0 * g.rs_a + k_lo * g.cs_a;
  const int64_t lda = mode == AMode::kRows ? g.rs_a : mode == AMode::kCols ? g.cs_a : 0;
  const bool init = g.init && pc == 0;
  float* c_row = g.C + i0 * g.ldc;
  for (int q = 0; q < np; ++q) {
    const int j0 = j_first + q * NR;
    if (g.lower_c && j0 > i0 + mr - 1) break;  // this tile and the rest: above the diagonal
    const int nr = g.N - j0 < NR ? g.N - j0 : NR;
    const bool b_in_place = direct_b && nr == NR;
    const float* bp = b_in_place ? g.B + (kn ? k_lo : pc) * g.rs_b + j0
                                 : Bp + (q * kc + (kn ? k_lo - pc : 0)) * NR;
    const int64_t ldb = b_in_place ? g.rs_b : NR;
    const float* bias = g.bias ? g.bias + j0 : nullptr;
    // A narrow edge panel (the 65th column of a 65-wide lm_head) runs the one-vector kernel: half
    // the work of the full-width one (small lm_head forward 141 -> 160 GFLOP/s on one core).
    if (NV > 1 && nr <= V::kW)
      run_micro_kernel<V, MR, 1>(mode, kn, a, lda, bp, ldb, c_row + j0, g.ldc, mr, nr, init, bias);
    else
      run_micro_kernel<V, MR, NV>(mode, kn, a, lda, bp, ldb, c_row + j0, g.ldc, mr, nr, init, bias);
  }
}

inline bool packs_strip_groups(const GemmArgs& g) {
  return g.rs_a == 1 && g.cs_a >= kGroupMinStride && g.a_tri == GemmArgs::kFull;
}

// The floats of packed A a thread needs for K slices of kc_max.
inline size_t a_buffer_floats(const GemmArgs& g, int MR, int kc_max) {
  return static_cast<size_t>(packs_strip_groups(g) ? kStripGroup : 1) * MR * kc_max;
}

// Strips [s_begin, s_end) of C, each against the same panels (strip_times_panels). Where A is
// column-major with columns a page or more apart (dweight's dout^T at OC >= 1024), the strips are
// packed kStripGroup at a time: packing one strip reads MR floats from each of kc rows of dout, a
// new cache line and page for every k, which the hardware prefetchers do not follow; a group reads
// kStripGroup times as many contiguous floats from each row. Measured at two threads
// (matmul_bench, GFLOP/s): shakespeare-char's qkv and MLP-up dweights at B = 8 356 -> 371 at
// AVX-512, 212 -> 218 at AVX2; GPT-2's 3072-wide 377 -> 390, at AVX2 205 -> 226. At OC = 384 and
// 512 groups were 2-5% slower. Ap: this thread's buffer of a_buffer_floats(g, MR, KC) floats.
template <class V, int MR, int NV>
void strips_times_panels(const GemmArgs& g, int s_begin, int s_end, int j_first, int np, int pc,
                         int kc, const float* Bp, bool direct_b, float* Ap) {
  if (packs_strip_groups(g)) {
    for (int s = s_begin; s < s_end; s += kStripGroup) {
      const int ns = s_end - s < kStripGroup ? s_end - s : kStripGroup;
      pack_a_strips<MR>(Ap, g, s, ns, pc, kc);
      for (int q = 0; q < ns; ++q)
        strip_times_panels<V, MR, NV>(g, s + q, j_first, np, pc, kc, Bp, direct_b,
                                      Ap + int64_t{q} * kc * MR, true);
    }
    return;
  }
  for (int s = s_begin; s < s_end; ++s)
    strip_times_panels<V, MR, NV>(g, s, j_first, np, pc, kc, Bp, direct_b, Ap);
}

// The C area an MR x NR tiling computes for an M x N product: whole strips of MR rows, whole
// NR-wide panels, and a last panel of at most W columns run by the one-vector kernel.
template <int MR, int NR, int W>
constexpr int64_t padded_area(int M, int N) {
  const int64_t rows = int64_t{(M + MR - 1) / MR} * MR;
  const int rem = N % NR;
  const int64_t cols = int64_t{N / NR} * NR + (rem == 0 ? 0 : rem <= W ? W : NR);
  return rows * cols;
}

// KC: the K slice of the few-rows loop; KC_MANY: of the many-rows loop. M, N, K > 0 (gemm.cpp
// writes an empty product itself).
template <class V, int MR, int NV, int KC, int NC, int KC_MANY = KC>
void gemm_blocked(const GemmArgs& g, ThreadPool& pool) {
  constexpr int NR = NV * V::kW;
  static_assert(NC % NR == 0, "NC must be a multiple of NR");
  const int m_strips = (g.M + MR - 1) / MR;
  // A row-major B (unit column stride) that fits in a core's L2 is read in place instead of
  // packed when at most 64 strips use it: the packing pass costs more than the strided reads, and
  // no thread reads panels packed by another core. This is dweight (B = inp (N, C)) on the small
  // model. Edge panels are always packed. Measured, N=768 C=128 dweight: OC=65 150 -> 187 GFLOP/s
  // on one core, OC=384 287 -> 217 us at two threads (2 MiB L2). A B streamed from memory
  // (N=16384, OC=65: 146 -> 133 GFLOP/s) or used by many strips (GPT-2's lm_head dweight, M =
  // 50257: 52.6 -> 71.4 ms at two threads) is faster packed, and so is one larger than the L2:
  // on Zen 3 (512 KiB L2) the small model's MLP-down dweight, whose halves read a B of 384 x 512
  // (768 KiB), went 49 -> 68 GFLOP/s packed on one core and 101 -> 110 at two (the best of 8 and 12
  // alternated runs). So is one whose rows are 2 KiB or more apart when a panel's row is one
  // cache line (NR = 16 floats, AVX2): the same dweight on Zen 4 (1 MiB L2, so it fits) capped at
  // AVX2 ran 114-123 GFLOP/s in place and 174-177 packed at two threads (matmul_bench, three
  // alternations), while at AVX-512 (two lines a row) in place stayed the faster (217-219 against
  // 188-201); the small model's other dweights, whose rows are 512 B apart, ran within 5% either
  // way at AVX2 and stay in place.
  // Which B is read in place never changes the results.
  const int64_t direct_b_max_floats = static_cast<int64_t>(l2_cache_bytes() / sizeof(float));
  constexpr int kDirectBMaxStrips = 64;
  constexpr int64_t kDirectBMaxRowStride = NR * sizeof(float) >= 128 ? INT64_MAX : 512;  // floats
  const bool direct_b = g.cs_b == 1 && int64_t(g.K) * g.N <= direct_b_max_floats &&
                        m_strips <= kDirectBMaxStrips && g.rs_b < kDirectBMaxRowStride;

  // Few rows and many columns (GPT-2 at B*T = 256): threads take groups of panels, pack those
  // panels themselves and run every strip against them, so no thread reads B panels packed into
  // another core's cache (at 2 threads, N=256 C=768 OC=3072 forward: splitting the strips ran at
  // 0.67x oneDNN). Groups: about two per thread, of 4 to NC / NR panels (wide groups reuse each
  // A strip across more panels); the partition never changes the results. An A that is not
  // row-major (dweight's dout^T) is packed by every task, all of it, so this path takes it only
  // for a wide product (N >= kPackedAMinCols: shakespeare-char's MLP-down dweight, C = 1536); a
  // narrower one (C = 384, OC = 384) ran 5-6% faster with the strips split below (AVX2, AVX-512).
  // Both tests depend on the shape only: the path, and so the K slices, never on the threads.
  constexpr int kColumnTasksMaxRows = 512, kMinTaskPanels = 4, kMaxTaskPanels = NC / NR;
  constexpr int kPackedAMinCols = 1024;
  const int all_panels = (g.N + NR - 1) / NR;
  if (g.M <= kColumnTasksMaxRows && all_panels >= 2 * kMinTaskPanels && !g.lower_c &&
      (g.cs_a == 1 || g.N >= kPackedAMinCols)) {
    const int want = 2 * pool.num_threads();
    int task_panels = (all_panels + want - 1) / want;
    task_panels = task_panels < kMinTaskPanels   ? kMinTaskPanels
                  : task_panels > kMaxTaskPanels ? kMaxTaskPanels
                                                 : task_panels;
    const int tasks = (all_panels + task_panels - 1) / task_panels;
    // K slices outermost, so the slice of A all tasks read (M x KC) stays in cache.
    for (int pc = 0; pc < g.K; pc += KC) {
      const int kc = g.K - pc < KC ? g.K - pc : KC;
      pool.parallel_for(tasks, [&](int64_t b, int64_t e, int) {
        float* Bp = thread_buffer(0, static_cast<size_t>(kMaxTaskPanels) * KC * NR);
        float* Ap = thread_buffer(1, a_buffer_floats(g, MR, KC));
        for (int64_t t = b; t < e; ++t) {
          const int p_first = static_cast<int>(t) * task_panels;
          const int np = all_panels - p_first < task_panels ? all_panels - p_first : task_panels;
          const int j_first = p_first * NR;
          for (int q = 0; q < np; ++q) {
            const int j0 = j_first + q * NR;
            const int nr = g.N - j0 < NR ? g.N - j0 : NR;
            if (!direct_b || nr < NR) pack_b_panel<V, NR>(Bp + q * kc * NR, g, pc, kc, j0, nr);
          }
          strips_times_panels<V, MR, NV>(g, 0, m_strips, j_first, np, pc, kc, Bp, direct_b, Ap);
        }
      });
    }
    return;
  }

  // Otherwise (many rows): for each NC-column block and KC slice, all threads pack the block's
  // panels, then split the strips.
  for (int jc = 0; jc < g.N; jc += NC) {
    const int nc = g.N - jc < NC ? g.N - jc : NC;
    const int n_panels = (nc + NR - 1) / NR;
    for (int pc = 0; pc < g.K; pc += KC_MANY) {
      const int kc = g.K - pc < KC_MANY ? g.K - pc : KC_MANY;
      float* Bp = thread_buffer(0, static_cast<size_t>(n_panels) * KC_MANY * NR);
      pool.parallel_for(n_panels, [&](int64_t b, int64_t e, int) {
        for (int64_t p = b; p < e; ++p) {
          const int j0 = jc + static_cast<int>(p) * NR;
          const int nr = g.N - j0 < NR ? g.N - j0 : NR;
          if (!direct_b || nr < NR) pack_b_panel<V, NR>(Bp + p * kc * NR, g, pc, kc, j0, nr);
        }
      });
      pool.parallel_for(m_strips, [&](int64_t b, int64_t e, int) {
        float* Ap = thread_buffer(1, a_buffer_floats(g, MR, KC_MANY));
        strips_times_panels<V, MR, NV>(g, static_cast<int>(b), static_cast<int>(e), jc, n_panels,
                                       pc, kc, Bp, direct_b, Ap);
      });
    }
  }
}
