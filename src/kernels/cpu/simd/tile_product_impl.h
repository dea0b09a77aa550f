// tile_product_impl.h: small products C = A B of tiles that stay in L1, register-blocked (MR rows x
// NV vectors of accumulators) on micro_kernel_impl.h, with A read in place by rows or by columns
// (broadcast one element at a time, so a transposed A costs nothing) and B row-major. Written once
// over a vector type V (vec_avx2.h, vec_avx512.h, or a one-lane scalar type) and included by
// flash_attention_impl.h and attention_impl.h inside an anonymous namespace after their
// `SG_TARGET_BEGIN`.
// V provides what micro_kernel_impl.h asks for. One of A's strides is 1: A is read by rows or by
// columns (a transposed operand).
// Not standalone: needs <algorithm> and <cstdint> first.
#pragma once

#include "kernels/cpu/simd/micro_kernel_impl.h"

inline int round_up(int x, int m) { return (x + m - 1) / m * m; }

// Which part of a tile product is needed or non-zero (causal structure on the diagonal tile).
// kLowerC: only C[i][j] for j <= i is wanted (columns past the row block's last row are skipped).
// kLowerA: A[i][k] = 0 for k > i.  kUpperA: A[i][k] = 0 for k < i.
enum class Tri { kFull, kLowerC, kLowerA, kUpperA };

// C[r][0 .. NV*W) = (or +=) sum_{k < kc} A[r * rs_a + k * cs_a] * B[k * ldb + 0 .. NV*W), r < MR:
// the GEMM's micro-kernel, reading A in place by rows (cs_a == 1) or by columns (rs_a == 1), and
// prefetching B's rows ahead if kPrefetchB.
template <class V, int MR, int NV, bool kPrefetchB>
inline void micro(int kc, const float* A, int64_t rs_a, int64_t cs_a, const float* B, int64_t ldb,
                  float* C, int64_t ldc, bool init) {
  constexpr int NR = NV * V::kW;
  if (cs_a == 1)
    micro_kernel<V, MR, NV, AMode::kRows, kPrefetchB>(kc, A, B, C, ldc, MR, NR, init, nullptr, rs_a,
                                                      ldb);
  else
    micro_kernel<V, MR, NV, AMode::kCols, kPrefetchB>(kc, A, B, C, ldc, MR, NR, init, nullptr, cs_a,
                                                      ldb);
}

// C (M, N) = (or +=) A (M, K) B (K, N) with A[i][k] = A[i * rs_a + k * cs_a], B row-major with
// leading dimension ldb, C with ldc. M is a multiple of MR, N of W. Each C element is summed over k
// in increasing order by one call. kPrefetchB: for a B larger than L1 (the stored attention
// kernel's (T, T) x (T, HS) products at T = 256: 3-6% faster with it; flash attention's tiles,
// which sit in L1, 2-4% slower).
template <class V, int MR, int NV, bool kPrefetchB = false>
void tile_product(Tri tri, int M, int N, int K, const float* A, int64_t rs_a, int64_t cs_a,
                  const float* B, int64_t ldb, float* C, int64_t ldc, bool init) {
  constexpr int W = V::kW;
  for (int i = 0; i < M; i += MR) {
    int n = N, k0 = 0, k1 = K;
    if (tri == Tri::kLowerC) n = std::min(N, round_up(i + MR, W));
    if (tri == Tri::kLowerA) k1 = std::min(K, i + MR);
    if (tri == Tri::kUpperA) k0 = std::min(K, i);
    const float* a = A + i * rs_a + k0 * cs_a;
    const float* b = B + k0 * ldb;
    float* c = C + i * ldc;
    int j = 0;
    for (; j + NV * W <= n; j += NV * W)
      micro<V, MR, NV, kPrefetchB>(k1 - k0, a, rs_a, cs_a, b + j, ldb, c + j, ldc, init);
    // The last 1 .. NV-1 vectors in one call (fewer broadcasts of A than one call per vector).
    const int rest = (n - j) / W;
    if (NV > 3 && rest == 3)
      micro<V, MR, 3, kPrefetchB>(k1 - k0, a, rs_a, cs_a, b + j, ldb, c + j, ldc, init);
    else if (NV > 2 && rest == 2)
      micro<V, MR, 2, kPrefetchB>(k1 - k0, a, rs_a, cs_a, b + j, ldb, c + j, ldc, init);
    else
      for (; j < n; j += W)
        micro<V, MR, 1, kPrefetchB>(k1 - k0, a, rs_a, cs_a, b + j, ldb, c + j, ldc, init);
  }
}
