// attention.cpp: cpu::attention_* (see attention.h): per (b, h) five small GEMMs and two row
// passes (softmax forward; softmax backward), the row passes the per-ISA kernels of
// simd/attention_impl.h (AVX-512 or AVX2) or the portable scalar rows below.
#include "kernels/cpu/attention.h"

#include <cmath>
#include <cstdint>
#include <limits>

#include "core/thread_pool.h"
#include "kernels/cpu/gemm.h"
#include "kernels/cpu/simd/attention_simd.h"
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
// dpre = w * (g - sum(w * g)) for j <= t, 0 above; writes dpre and g = dpre * scale.
void softmax_back_row_scalar(float* dpre, float* g, const float* w, int t, int T, float scale) {
  float s = 0.0f;
  for (int j = 0; j <= t; ++j) s += w[j] * g[j];
  for (int j = 0; j <= t; ++j) {
    dpre[j] = w[j] * (g[j] - s);
    g[j] = dpre[j] * scale;
  }
  for (int j = t + 1; j < T; ++j) dpre[j] = g[j] = 0.0f;
}

// (T, T) a = att * drop for one (b, h), zero above the diagonal (att already is).
void apply_mask(float* a, const float* w, const float* drop, int T) {
  const int64_t n = static_cast<int64_t>(T) * T;
  for (int64_t i = 0; i < n; ++i) a[i] = w[i] * drop[i];
}

}  // namespace

void attention_forward(const ExecContext& ex, float* out, float* preatt, float* att,
                       const float* qkv, const float* drop, int B, int T, int C, int NH) {
  const int HS = C / NH;
  const float scale = 1.0f / std::sqrt(static_cast<float>(HS));
  const auto softmax = pick(ex.isa, detail::attention_softmax_avx512,
                            detail::attention_softmax_avx2, softmax_scalar);
  const int64_t TT = static_cast<int64_t>(T) * T;
  ex.workers().parallel_for(static_cast<int64_t>(B) * NH, [&](int64_t begin, int64_t end, int) {
    for (int64_t bh = begin; bh < end; ++bh) {
      const int b = static_cast<int>(bh / NH), h = static_cast<int>(bh % NH);
      const float* q = qkv + static_cast<int64_t>(b) * T * 3 * C + h * HS;  // rows of stride 3C
      float* pre = preatt + bh * TT;                                         // (T, T)
      float* w = att + bh * TT;                                              // (T, T)
      // pre = q k^T (lower triangle), then scaled and softmaxed row by row.
      detail::gemm(ex.isa, {.M = T, .N = T, .K = HS,
                            .A = q, .rs_a = 3 * C, .cs_a = 1,
                            .B = q + C, .rs_b = 1, .cs_b = 3 * C,  // B[i][t2] = k[t2][i]
                            .C = pre, .ldc = T, .init = true, .lower_c = true},
                   detail::serial_pool());
      softmax(pre, w, T, scale);
      // out = (att * drop) v
      const float* a = w;
      if (drop) {
        float* tmp = detail::thread_buffer(2, static_cast<size_t>(TT));
        apply_mask(tmp, w, drop + bh * TT, T);
        a = tmp;
      }
      detail::gemm(ex.isa, {.M = T, .N = HS, .K = T,
                            .A = a, .rs_a = T, .cs_a = 1,
                            .B = q + 2 * C, .rs_b = 3 * C, .cs_b = 1,
                            .C = out + static_cast<int64_t>(b) * T * C + h * HS, .ldc = C,
                            .init = true,
                            .a_tri = GemmArgs::kLower},
                   detail::serial_pool());
    }
  });
}

void attention_backward(const ExecContext& ex, float* dqkv, float* dpreatt, float* datt,
                        const float* dout, const float* qkv, const float* att, const float* drop,
                        int B, int T, int C, int NH) {
  const int HS = C / NH;
  const float scale = 1.0f / std::sqrt(static_cast<float>(HS));
  const auto softmax_back_row = pick(ex.isa, detail::attention_softmax_back_row_avx512,
                                     detail::attention_softmax_back_row_avx2,
                                     softmax_back_row_scalar);
  const int64_t TT = static_cast<int64_t>(T) * T;
  ex.workers().parallel_for(static_cast<int64_t>(B) * NH, [&](int64_t begin, int64_t end, int) {
    for (int64_t bh = begin; bh < end; ++bh) {
      const int b = static_cast<int>(bh / NH), h = static_cast<int>(bh % NH);
      const int64_t row0 = static_cast<int64_t>(b) * T;
      const float* q = qkv + row0 * 3 * C + h * HS;  // (T, HS) rows of stride 3C; k, v follow
      float* dq = dqkv + row0 * 3 * C + h * HS;
      const float* dO = dout + row0 * C + h * HS;  // (T, HS) rows of stride C
      const float* w = att + bh * TT;
      float* g = datt + bh * TT;
      float* dpre = dpreatt + bh * TT;
      const float* a = w;
      if (drop) {
        float* tmp = detail::thread_buffer(2, static_cast<size_t>(TT));
        apply_mask(tmp, w, drop + bh * TT, T);
        a = tmp;
      }
      // da = dO v^T (lower triangle); datt = da * drop.
      detail::gemm(ex.isa, {.M = T, .N = T, .K = HS,
                            .A = dO, .rs_a = C, .cs_a = 1,
                            .B = q + 2 * C, .rs_b = 1, .cs_b = 3 * C,
                            .C = g, .ldc = T, .init = true, .lower_c = true},
                   detail::serial_pool());
      if (drop) {
        const float* m = drop + bh * TT;
        for (int t = 0; t < T; ++t)
          for (int j = 0; j <= t; ++j) g[t * T + j] *= m[t * T + j];
      }
      // dv = a^T dO: A[t2][t] = a[t][t2], zero for t < t2.
      detail::gemm(ex.isa, {.M = T, .N = HS, .K = T,
                            .A = a, .rs_a = 1, .cs_a = T,
                            .B = dO, .rs_b = C, .cs_b = 1,
                            .C = dq + 2 * C, .ldc = 3 * C, .init = true,
                            .a_tri = GemmArgs::kUpper},
                   detail::serial_pool());
      // Softmax backward, row by row: dpre, and g = dpre * scale (zero above the diagonal).
      for (int t = 0; t < T; ++t)
        softmax_back_row(dpre + t * T, g + t * T, w + t * T, t, T, scale);
      // dq = g k;  dk = g^T q.
      detail::gemm(ex.isa, {.M = T, .N = HS, .K = T,
                            .A = g, .rs_a = T, .cs_a = 1,
                            .B = q + C, .rs_b = 3 * C, .cs_b = 1,
                            .C = dq, .ldc = 3 * C, .init = true, .a_tri = GemmArgs::kLower},
                   detail::serial_pool());
      detail::gemm(ex.isa, {.M = T, .N = HS, .K = T,
                            .A = g, .rs_a = 1, .cs_a = T,
                            .B = q, .rs_b = 3 * C, .cs_b = 1,
                            .C = dq + C, .ldc = 3 * C, .init = true,
                            .a_tri = GemmArgs::kUpper},
                   detail::serial_pool());
    }
  });
}

}  // namespace scratchgpt::cpu
