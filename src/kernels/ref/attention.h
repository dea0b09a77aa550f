// attention.h: causal multi-head self-attention over a fused qkv tensor, the scalar reference.
// Per head h: scores = q k^T * HS^-0.5, -inf above the diagonal, softmax, optional dropout on the
// weights, then a weighted sum of v. Stores the full (T, T) matrices, as the lecture does.
// Fast twin: kernels/cpu/attention.h (per-head GEMMs that skip tiles above the diagonal, SIMD
// softmax, threaded over B*NH; it stores the same (T, T) matrices, which dropout needs).
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>

#include "kernels/ref/bf16.h"

namespace scratchgpt::ref {

// qkv (B, T, 3C): q = qkv[..., 0:C], k = qkv[..., C:2C], v = qkv[..., 2C:3C]; each C splits into
// NH heads of HS = C/NH contiguous channels (as q.view(B, T, NH, HS).transpose(1, 2)).
// out (B, T, C) heads concatenated; preatt (B, NH, T, T) scaled scores with -inf above the
// diagonal; att (B, NH, T, T) softmax weights (zeros above the diagonal);
// drop (B, NH, T, T) scaled dropout mask (0 or 1/(1-p)) applied to att, or nullptr for none.
// bf16: the two products' inputs (q and k; the weights and v) rounded to bf16 (ref/bf16.h), the
// sums, the softmax and the weights kept in F: --dtype bf16.
template <typename F>
void attention_forward(F* out, F* preatt, F* att, const F* qkv, const F* drop, int B, int T, int C,
                       int NH, bool bf16 = false) {
  const auto R = [bf16](F x) { return bf16 ? F(round_bf16(static_cast<float>(x))) : x; };
  const int HS = C / NH;
  const F scale = F(1) / std::sqrt(F(HS));
  const F neg_inf = -std::numeric_limits<F>::infinity();
  for (int b = 0; b < B; ++b)
    for (int h = 0; h < NH; ++h)
      for (int t = 0; t < T; ++t) {
        const F* q = qkv + (static_cast<int64_t>(b) * T + t) * 3 * C + h * HS;
        const int64_t row = ((static_cast<int64_t>(b) * NH + h) * T + t) * T;
        F* pre = preatt + row;
        F* w = att + row;
        F mx = neg_inf;
        for (int t2 = 0; t2 < T; ++t2) {
          if (t2 > t) {
            pre[t2] = neg_inf;
            continue;
          }
          const F* k = qkv + (static_cast<int64_t>(b) * T + t2) * 3 * C + C + h * HS;
          F dot = 0;
          for (int i = 0; i < HS; ++i) dot += R(q[i]) * R(k[i]);
          pre[t2] = dot * scale;
          mx = pre[t2] > mx ? pre[t2] : mx;
        }
        F sum = 0;
        for (int t2 = 0; t2 < T; ++t2) {
          w[t2] = t2 <= t ? std::exp(pre[t2] - mx) : F(0);
          sum += w[t2];
        }
        for (int t2 = 0; t2 < T; ++t2) w[t2] /= sum;
        F* o = out + (static_cast<int64_t>(b) * T + t) * C + h * HS;
        for (int i = 0; i < HS; ++i) o[i] = 0;
        for (int t2 = 0; t2 <= t; ++t2) {
          const F* v = qkv + (static_cast<int64_t>(b) * T + t2) * 3 * C + 2 * C + h * HS;
          F a = R(w[t2] * (drop ? drop[row + t2] : F(1)));
          for (int i = 0; i < HS; ++i) o[i] += a * R(v[i]);
        }
      }
}

// Writes dqkv (B, T, 3C) (its old contents are not used). datt and dpreatt (B, NH, T, T) are
// scratch (overwritten).
// Backward of: a = att * drop;  out = a v;  att = softmax(preatt);  preatt = q k^T * scale.
// bf16: the four products' inputs rounded (dout, v, a, q, k and the scores' gradient times scale).
template <typename F>
void attention_backward(F* dqkv, F* dpreatt, F* datt, const F* dout, const F* qkv, const F* att,
                        const F* drop, int B, int T, int C, int NH, bool bf16 = false) {
  const auto R = [bf16](F x) { return bf16 ? F(round_bf16(static_cast<float>(x))) : x; };
  const int HS = C / NH;
  const F scale = F(1) / std::sqrt(F(HS));
  std::fill(dqkv, dqkv + static_cast<int64_t>(B) * T * 3 * C, F(0));  // summed into below
  for (int b = 0; b < B; ++b)
    for (int h = 0; h < NH; ++h)
      for (int t = 0; t < T; ++t) {
        const int64_t row = ((static_cast<int64_t>(b) * NH + h) * T + t) * T;
        const F* w = att + row;
        F* dw = datt + row;
        F* dpre = dpreatt + row;
        const F* dO = dout + (static_cast<int64_t>(b) * T + t) * C + h * HS;
        // out = a v: da[t2] = dO . v[t2];  dv[t2] += a[t2] dO
        for (int t2 = 0; t2 < T; ++t2) {
          dw[t2] = 0;
          if (t2 > t) continue;
          const int64_t base = (static_cast<int64_t>(b) * T + t2) * 3 * C + 2 * C + h * HS;
          const F m = drop ? drop[row + t2] : F(1);
          F dot = 0;
          const F a = R(w[t2] * m);
          for (int i = 0; i < HS; ++i) {
            dot += R(dO[i]) * R(qkv[base + i]);
            dqkv[base + i] += a * R(dO[i]);
          }
          dw[t2] = dot * m;  // a = att * drop
        }
        // att = softmax(preatt): dpre = att * (datt - sum(att * datt))
        F s = 0;
        for (int t2 = 0; t2 <= t; ++t2) s += w[t2] * dw[t2];
        for (int t2 = 0; t2 < T; ++t2) dpre[t2] = t2 <= t ? w[t2] * (dw[t2] - s) : F(0);
        // preatt = q . k * scale
        const int64_t qbase = (static_cast<int64_t>(b) * T + t) * 3 * C + h * HS;
        for (int t2 = 0; t2 <= t; ++t2) {
          const int64_t kbase = (static_cast<int64_t>(b) * T + t2) * 3 * C + C + h * HS;
          const F g = R(dpre[t2] * scale);
          for (int i = 0; i < HS; ++i) {
            dqkv[qbase + i] += g * R(qkv[kbase + i]);
            dqkv[kbase + i] += g * R(qkv[qbase + i]);
          }
        }
      }
}

}  // namespace scratchgpt::ref
