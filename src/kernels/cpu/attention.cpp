// attention.cpp: cpu::attention_* (see attention.h): per (b, h) six small products (the scores
// q k^T and, in the backward, dO v^T; four (T, T) x (T, HS) products) and two row passes (softmax
// forward; softmax backward). The row passes are the per-ISA kernels of simd/attention_impl.h
// (AVX-512 or AVX2) or the portable scalar rows below; the products are attention_impl.h's tile
// products where T and HS are whole vectors and T <= kTileMaxT, else the GEMM of gemm.h. With
// ExecContext::dtype bf16 every product runs on gemm_bf16 (HeadProducts).
#include "kernels/cpu/attention.h"

#include <cmath>
#include <cstdint>
#include <limits>

#include "core/thread_pool.h"
#include "kernels/cpu/gemm.h"
#include "kernels/cpu/simd/attention_simd.h"
#include "kernels/cpu/simd/gemm_bf16_simd.h"
#include "kernels/cpu/simd/simd.h"

namespace scratchgpt::cpu {

namespace {

using detail::GemmArgs;

// Row t of the scores: pre[0..t] *= scale (in place), w = softmax(pre[0..t]), w = 0 and
// pre = -inf above the diagonal. Portable version.
void softmax_row_scalar(float* pre, float* w, int t, int T, float scale) {
  float mx = -std::numeric_limits<float>::infinity();
  for (int j = 0; j <= t; ++j) {
    pre[j] *= scale;
    mx = pre[j] > mx ? pre[j] : mx;
  }
  float sum = 0.0f;
  for (int j = 0; j <= t; ++j) {
    w[j] = std::exp(pre[j] - mx);
    sum += w[j];
  }
  const float inv = 1.0f / sum;
  for (int j = 0; j <= t; ++j) w[j] *= inv;
  for (int j = t + 1; j < T; ++j) {
    pre[j] = -std::numeric_limits<float>::infinity();
    w[j] = 0.0f;
  }
}

// One head's scores, pre and w (T, T): softmax_row_scalar on every row.
void softmax_scalar(float* pre, float* w, int T, float scale) {
  for (int t = 0; t < T; ++t)
    softmax_row_scalar(pre + static_cast<int64_t>(t) * T, w + static_cast<int64_t>(t) * T, t, T,
                       scale);
}

// Row t of the softmax backward: with g = da (in/out) and w the weights:
// dpre = w * (g - sum(w * g)) for j <= t, 0 above; writes dpre (unless nullptr) and
// g = dpre * scale.
void softmax_back_row_scalar(float* dpre, float* g, const float* w, int t, int T, float scale) {
  float s = 0.0f;
  for (int j = 0; j <= t; ++j) s += w[j] * g[j];
  for (int j = 0; j <= t; ++j) {
    const float d = w[j] * (g[j] - s);
    if (dpre) dpre[j] = d;
    g[j] = d * scale;
  }
  for (int j = t + 1; j < T; ++j) {
    if (dpre) dpre[j] = 0.0f;
    g[j] = 0.0f;
  }
}

// One head's softmax backward, dpre (or nullptr), g, w (T, T): softmax_back_row_scalar on every
// row.
void softmax_back_scalar(float* dpre, float* g, const float* w, int T, float scale) {
  for (int t = 0; t < T; ++t) {
    const int64_t off = static_cast<int64_t>(t) * T;
    softmax_back_row_scalar(dpre ? dpre + off : nullptr, g + off, w + off, t, T, scale);
  }
}

// The products read a lower-triangular (T, T) operand in blocks of at most this many rows (tile
// products 8 or 4, the GEMM 12, 8, 6 or 4), so past the diagonal of row t they read at most
// kMaskBand - 1 entries, which must be zero, and nothing further.
constexpr int kMaskBand = 16;

// (T, T) a = att * drop for one (b, h) on and below the diagonal, and zero for kMaskBand - 1
// entries past it; the rest of a is left alone (the products never read it). About half the
// traffic of the whole (T, T): attention_bench's shakespeare-b8-drop at two threads, AVX-512,
// forward 2.64 -> 2.53 ms a layer, backward 4.31 -> 4.11 (at AVX2 within 2%).
void apply_mask(float* a, const float* w, const float* drop, int T) {
  for (int t = 0; t < T; ++t) {
    const int64_t off = static_cast<int64_t>(t) * T;
    const int end = t + kMaskBand < T ? t + kMaskBand : T;
    for (int j = 0; j <= t; ++j) a[off + j] = w[off + j] * drop[off + j];
    for (int j = t + 1; j < end; ++j) a[off + j] = 0.0f;
  }
}

// The per-ISA tile products take a head whole, in L1/L2: up to this T (the GEMM blocks for cache
// beyond). Measured with bench/attention_bench (see docs/bench-log.md).
constexpr int kTileMaxT = 256;

// One head's products, on attention_impl.h's tile products or on the GEMM. bf16 (--dtype bf16):
// on gemm_bf16's sums (inputs rounded to bf16, pairs summed in fp32: vdpbf16ps where the CPU has
// it; ref::attention_* with bf16 = true is the twin), through its head products
// (attention_bf16_impl.h: the same bits, without the GEMM's packing) where tiled on vdpbf16ps.
struct HeadProducts {
  SimdLevel isa;
  bool tiled;  // T and HS whole vectors of the level, T <= kTileMaxT
  bool bf16;
  bool bf16_tiled;  // bf16, tiled at AVX-512 on a CPU with AVX512_BF16

  HeadProducts(const ExecContext& ex, int T, int HS) : isa(ex.isa), bf16(ex.dtype == Dtype::kBf16) {
    const int lanes = isa == SimdLevel::kAvx512 ? 16 : 8;
    tiled = isa != SimdLevel::kScalar && T % lanes == 0 && HS % lanes == 0 && T <= kTileMaxT;
    bf16_tiled = bf16 && tiled && isa == SimdLevel::kAvx512 && cpu_has_avx512_bf16();
  }

  // s (T, T) = a b^T on and below the diagonal; a, b (T, HS) rows of strides lda, ldb.
  void scores(float* s, const float* a, int64_t lda, const float* b, int64_t ldb, int T,
              int HS) const {
    if (bf16_tiled) return detail::attention_scores_bf16_avx512(s, a, lda, b, ldb, T, HS);
    if (tiled && !bf16) {
      float* bt = detail::thread_buffer(5, static_cast<size_t>(T) * HS);  // (HS, T)
      // (the portable slot is never taken: tiled needs AVX2 or AVX-512)
      pick(isa, detail::attention_scores_avx512, detail::attention_scores_avx2,
           detail::attention_scores_avx2)(s, a, lda, b, ldb, T, HS, bt);
      return;
    }
    gemm({.M = T, .N = T, .K = HS,
          .A = a, .rs_a = lda, .cs_a = 1,
          .B = b, .rs_b = 1, .cs_b = ldb,  // B[i][t2] = b[t2][i]
          .C = s, .ldc = T, .init = true, .lower_c = true});
  }

  // c (T, HS) = A (T, T) b (T, HS), A[i][k] = A[i * rs_a + k * cs_a] zero above the diagonal
  // (upper = false) or below it; c, b rows of strides ldc, ldb.
  void mix(bool upper, float* c, int64_t ldc, const float* A, int64_t rs_a, int64_t cs_a,
           const float* b, int64_t ldb, int T, int HS) const {
    if (bf16_tiled && (upper ? rs_a == 1 : cs_a == 1))
      return detail::attention_mix_bf16_avx512(upper, c, ldc, A, rs_a, cs_a, b, ldb, T, HS);
    if (tiled && !bf16) {
      pick(isa, detail::attention_mix_avx512, detail::attention_mix_avx2,
           detail::attention_mix_avx2)(upper, c, ldc, A, rs_a, cs_a, b, ldb, T, HS);
      return;
    }
    gemm({.M = T, .N = HS, .K = T,
          .A = A, .rs_a = rs_a, .cs_a = cs_a,
          .B = b, .rs_b = ldb, .cs_b = 1,
          .C = c, .ldc = ldc, .init = true,
          .a_tri = upper ? GemmArgs::kUpper : GemmArgs::kLower});
  }

  // The GEMM of the dtype, on this thread.
  void gemm(const GemmArgs& g) const {
    if (bf16) return detail::gemm_bf16(isa, g, detail::serial_pool());
    detail::gemm(isa, g, detail::serial_pool());
  }
};

}  // namespace

void attention_forward(const ExecContext& ex, float* out, float* preatt, float* att,
                       const float* qkv, const float* drop, int B, int T, int C, int NH) {
  const int HS = C / NH;
  const float scale = 1.0f / std::sqrt(static_cast<float>(HS));
  const auto softmax = pick(ex.isa, detail::attention_softmax_avx512,
                            detail::attention_softmax_avx2, softmax_scalar);
  const int64_t TT = static_cast<int64_t>(T) * T;
  const HeadProducts products(ex, T, HS);
  ex.workers().parallel_for(static_cast<int64_t>(B) * NH, [&](int64_t begin, int64_t end, int) {
    for (int64_t bh = begin; bh < end; ++bh) {
      const int b = static_cast<int>(bh / NH), h = static_cast<int>(bh % NH);
      const float* q = qkv + static_cast<int64_t>(b) * T * 3 * C + h * HS;    // rows of stride 3C
      float* pre = preatt ? preatt + bh * TT : detail::thread_buffer(6, TT);  // (T, T)
      float* w = att + bh * TT;                                               // (T, T)
      // pre = q k^T (lower triangle), then scaled and softmaxed row by row.
      products.scores(pre, q, 3 * C, q + C, 3 * C, T, HS);
      softmax(pre, w, T, scale);
      // out = (att * drop) v
      const float* a = w;
      if (drop) {
        float* tmp = detail::thread_buffer(2, static_cast<size_t>(TT));
        apply_mask(tmp, w, drop + bh * TT, T);
        a = tmp;
      }
      products.mix(false, out + static_cast<int64_t>(b) * T * C + h * HS, C, a, T, 1, q + 2 * C,
                   3 * C, T, HS);
    }
  });
}

void attention_backward(const ExecContext& ex, float* dqkv, float* dpreatt, float* datt,
                        const float* dout, const float* qkv, const float* att, const float* drop,
                        int B, int T, int C, int NH) {
  const int HS = C / NH;
  const float scale = 1.0f / std::sqrt(static_cast<float>(HS));
  const auto softmax_back = pick(ex.isa, detail::attention_softmax_back_avx512,
                                 detail::attention_softmax_back_avx2, softmax_back_scalar);
  const int64_t TT = static_cast<int64_t>(T) * T;
  const HeadProducts products(ex, T, HS);
  ex.workers().parallel_for(static_cast<int64_t>(B) * NH, [&](int64_t begin, int64_t end, int) {
    for (int64_t bh = begin; bh < end; ++bh) {
      const int b = static_cast<int>(bh / NH), h = static_cast<int>(bh % NH);
      const int64_t row0 = static_cast<int64_t>(b) * T;
      const float* q = qkv + row0 * 3 * C + h * HS;  // (T, HS) rows of stride 3C; k, v follow
      float* dq = dqkv + row0 * 3 * C + h * HS;
      const float* dO = dout + row0 * C + h * HS;  // (T, HS) rows of stride C
      const float* w = att + bh * TT;
      float* g = datt ? datt + bh * TT : detail::thread_buffer(6, TT);  // (T, T)
      float* dpre = dpreatt ? dpreatt + bh * TT : nullptr;              // (T, T) or not kept
      const float* a = w;
      if (drop) {
        float* tmp = detail::thread_buffer(2, static_cast<size_t>(TT));
        apply_mask(tmp, w, drop + bh * TT, T);
        a = tmp;
      }
      // da = dO v^T (lower triangle); datt = da * drop.
      products.scores(g, dO, C, q + 2 * C, 3 * C, T, HS);
      if (drop) {
        const float* m = drop + bh * TT;
        for (int t = 0; t < T; ++t)
          for (int j = 0; j <= t; ++j) g[t * T + j] *= m[t * T + j];
      }
      // dv = a^T dO: A[t2][t] = a[t][t2], zero for t < t2.
      products.mix(true, dq + 2 * C, 3 * C, a, 1, T, dO, C, T, HS);
      // Softmax backward, row by row: dpre, and g = dpre * scale (zero above the diagonal).
      softmax_back(dpre, g, w, T, scale);
      // dq = g k;  dk = g^T q.
      products.mix(false, dq, 3 * C, g, T, 1, q + C, 3 * C, T, HS);
      products.mix(true, dq + C, 3 * C, g, 1, T, q, 3 * C, T, HS);
    }
  });
}

}  // namespace scratchgpt::cpu
