// tile_product_impl.h: small products C = A B of tiles that stay in L1, register-blocked (MR rows x
// NV vectors of accumulators), with A read in place through any strides (broadcast one element at
// a time, so a transposed A costs nothing) and B row-major. Written once over a vector type V
// (vec_avx2.h, vec_avx512.h, or a one-lane scalar type) and included by flash_attention_impl.h and
// attention_impl.h inside an anonymous namespace after their `SG_TARGET_BEGIN`.
// V provides: T, kW (lanes), zero(), load(p), store(p, x), bcast(p), fma(a, b, c) = a*b + c, add.
// Not standalone: needs <algorithm> and <cstdint> first.
#pragma once

inline int round_up(int x, int m) { return (x + m - 1) / m * m; }

// Which part of a tile product is needed or non-zero (causal structure on the diagonal tile).
// kLowerC: only C[i][j] for j <= i is wanted (columns past the row block's last row are skipped).
// kLowerA: A[i][k] = 0 for k > i.  kUpperA: A[i][k] = 0 for k < i.
enum class Tri { kFull, kLowerC, kLowerA, kUpperA };

// C[r][0 .. NV*W) = (or +=) sum_{k < kc} A[r * rs_a + k * cs_a] * B[k * ldb + 0 .. NV*W), r < MR.
template <class V, int MR, int NV>
inline void micro(int kc, const float* __restrict A, int64_t rs_a, int64_t cs_a,
                  const float* __restrict B, int64_t ldb, float* __restrict C, int64_t ldc,
                  bool init) {
  using T = typename V::T;
  constexpr int W = V::kW;
  T acc[MR][NV];
#pragma GCC unroll 8
  for (int r = 0; r < MR; ++r)
#pragma GCC unroll 8
    for (int v = 0; v < NV; ++v) acc[r][v] = V::zero();
  for (int k = 0; k < kc; ++k) {
    T b[NV];
#pragma GCC unroll 8
    for (int v = 0; v < NV; ++v) b[v] = V::load(B + k * ldb + v * W);
#pragma GCC unroll 8
    for (int r = 0; r < MR; ++r) {
      const T a = V::bcast(A + r * rs_a + k * cs_a);
#pragma GCC unroll 8
      for (int v = 0; v < NV; ++v) acc[r][v] = V::fma(a, b[v], acc[r][v]);
    }
  }
#pragma GCC unroll 8
  for (int r = 0; r < MR; ++r)
#pragma GCC unroll 8
    for (int v = 0; v < NV; ++v) {
      float* c = C + r * ldc + v * W;
      V::store(c, init ? acc[r][v] : V::add(V::load(c), acc[r][v]));
    }
}

// C (M, N) = (or +=) A (M, K) B (K, N) with A[i][k] = A[i * rs_a + k * cs_a], B row-major with
// leading dimension ldb, C with ldc. M is a multiple of MR, N of W. Each C element is summed over k
// in increasing order by one call.
template <class V, int MR, int NV>
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
      micro<V, MR, NV>(k1 - k0, a, rs_a, cs_a, b + j, ldb, c + j, ldc, init);
    // The last 1 .. NV-1 vectors in one call (fewer broadcasts of A than one call per vector).
    const int rest = (n - j) / W;
    if (NV > 3 && rest == 3)
      micro<V, MR, 3>(k1 - k0, a, rs_a, cs_a, b + j, ldb, c + j, ldc, init);
    else if (NV > 2 && rest == 2)
      micro<V, MR, 2>(k1 - k0, a, rs_a, cs_a, b + j, ldb, c + j, ldc, init);
    else
      for (; j < n; j += W) micro<V, MR, 1>(k1 - k0, a, rs_a, cs_a, b + j, ldb, c + j, ldc, init);
  }
}
