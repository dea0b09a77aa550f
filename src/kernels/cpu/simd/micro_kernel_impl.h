// micro_kernel_impl.h: the register-blocked micro-kernel that every product of C = A B runs on,
// written once over a vector type V (vec_avx2.h, vec_avx512.h, or a one-lane scalar type): an
// MR x (NV vectors) tile of C from a K-long strip of A and panel of B. Included by gemm_impl.h (the
// blocked GEMM, which packs A and B for it) and by tile_product_impl.h (attention's small products
// of tiles in L1, read in place), inside an anonymous namespace after the file's
// `SG_TARGET_BEGIN`, so each copy is compiled for its instruction set.
// V provides: T, kW (lanes), zero(), load(p), store(p, x), bcast(p), fma(a, b, c) = a*b + c, add.
// Not standalone: needs <cstdint> first.
#pragma once

// Where the micro-kernel reads A(r, k) of its strip. Same products in the same order in every
// mode; the in-place modes save the packing copy when the strip already has a usable layout.
enum class AMode {
  kPacked,  // Ap[k * MR + r]: the packed strip [k][MR]
  kRows,    // Ap[r * lda + k]: a row-major A read in place (the forward and dinp products)
  kCols,    // Ap[k * lda + r]: a column-major A read in place (dweight: dout^T, MR rows of dout
            // are MR contiguous floats of each dout row, exactly a packed strip's row but with
            // stride lda = OC)
};

// C[r][j] = bias[j] + sum (init; bias may be null: 0 + sum) or C[r][j] += sum, with
// sum = A(r, 0) B[0][j] + ... + A(r, kc - 1) B[kc - 1][j] in that order, for r < mr and j < nr;
// B's rows are ldb apart. An MR x NR tile in registers; an edge tile (mr < MR or nr < NR) writes
// only its valid part.
template <class V, int MR, int NV, AMode kMode = AMode::kPacked, bool kPrefetchB = true>
inline void micro_kernel(int kc, const float* __restrict Ap, const float* __restrict Bp, float* C,
                         int64_t ldc, int mr, int nr, bool init, const float* bias, int64_t lda,
                         int64_t ldb) {
  using T = typename V::T;
  constexpr int W = V::kW;
  constexpr int NR = NV * W;
  T acc[MR][NV];
#pragma GCC unroll 16
  for (int r = 0; r < MR; ++r)
#pragma GCC unroll 4
    for (int v = 0; v < NV; ++v) acc[r][v] = V::zero();
  for (int k = 0; k < kc; ++k) {
    // B's row 8 steps ahead, one prefetch per cache line (2-6% on most model shapes at two threads,
    // matmul_bench; past the panel's end it touches nothing that faults). Left out where B sits
    // in L1 (kPrefetchB false: flash attention's tiles, 2-4% slower with it at AVX2).
#pragma GCC unroll 4
    for (int l = 0; l < NR; l += 16)
      if constexpr (kPrefetchB) __builtin_prefetch(Bp + (k + 8) * ldb + l, 0, 3);
    T b[NV];
#pragma GCC unroll 4
    for (int v = 0; v < NV; ++v) b[v] = V::load(Bp + k * ldb + v * W);
#pragma GCC unroll 16
    for (int r = 0; r < MR; ++r) {
      const T a = kMode == AMode::kRows   ? V::bcast(Ap + r * lda + k)
                  : kMode == AMode::kCols ? V::bcast(Ap + k * lda + r)
                                          : V::bcast(Ap + k * MR + r);
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

// micro_kernel in the A mode chosen at run time (A at `a`, row or column stride lda).
template <class V, int MR, int NV>
inline void run_micro_kernel(AMode mode, int kc, const float* a, int64_t lda, const float* Bp,
                             int64_t ldb, float* C, int64_t ldc, int mr, int nr, bool init,
                             const float* bias) {
  switch (mode) {
    case AMode::kRows:
      return micro_kernel<V, MR, NV, AMode::kRows>(kc, a, Bp, C, ldc, mr, nr, init, bias, lda, ldb);
    case AMode::kCols:
      return micro_kernel<V, MR, NV, AMode::kCols>(kc, a, Bp, C, ldc, mr, nr, init, bias, lda, ldb);
    case AMode::kPacked:
      return micro_kernel<V, MR, NV>(kc, a, Bp, C, ldc, mr, nr, init, bias, 0, ldb);
  }
}
