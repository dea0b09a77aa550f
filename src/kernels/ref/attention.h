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
#include <vector>

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

// --dtype bf16's fused kernel (cpu::flash_attention_* with ExecContext::dtype bf16): the same
// attention, rounding the products' inputs to bf16 where that kernel does (R below), sums in F.
// It keeps no (T, T) matrices, so its weights are rounded before they are normalised.
// Forward, per head and row t: s_j = (R(q_t) . R(k_j)) * scale for j <= t; m = max_j s_j;
// e_j = exp(s_j - m); l = sum_j e_j; out_t = sum_j R(e_j) R(v_j) / l; lse_t = m + log(l), lse
// (B, NH, T). The kernel rounds each e_j against the running max of the key tiles it has seen
// (rescaling its sums as the max moves): these numbers when one tile holds the whole row (T at
// most its tile), otherwise each weight within two roundings (its and this one's) of these.
template <typename F>
void flash_attention_forward_bf16(F* out, F* lse, const F* qkv, int B, int T, int C, int NH) {
  const auto R = [](F x) { return F(round_bf16(static_cast<float>(x))); };
  const int HS = C / NH;
  const F scale = F(1) / std::sqrt(F(HS));
  std::vector<F> s(T);
  for (int b = 0; b < B; ++b)
    for (int h = 0; h < NH; ++h)
      for (int t = 0; t < T; ++t) {
        auto at = [&](int row, int part) {  // q (0), k (1) or v (2) of a row of this head
          return qkv + (static_cast<int64_t>(b) * T + row) * 3 * C + part * C + h * HS;
        };
        F m = -std::numeric_limits<F>::infinity();
        for (int j = 0; j <= t; ++j) {
          F dot = 0;
          for (int i = 0; i < HS; ++i) dot += R(at(t, 0)[i]) * R(at(j, 1)[i]);
          s[j] = dot * scale;
          m = s[j] > m ? s[j] : m;
        }
        F l = 0;
        F* o = out + (static_cast<int64_t>(b) * T + t) * C + h * HS;
        for (int i = 0; i < HS; ++i) o[i] = 0;
        for (int j = 0; j <= t; ++j) {
          const F e = std::exp(s[j] - m);
          l += e;
          for (int i = 0; i < HS; ++i) o[i] += R(e) * R(at(j, 2)[i]);
        }
        for (int i = 0; i < HS; ++i) o[i] /= l;
        lse[(static_cast<int64_t>(b) * NH + h) * T + t] = m + std::log(l);
      }
}

// Its backward, from the forward's out and lse: p_j = exp(s_j - lse_t) (the normalised weights,
// s_j as above); D_t = dout_t . out_t, unrounded; dv_j += R(p_j) R(dout_t);
// dp_j = R(dout_t) . R(v_j); g_j = R(p_j (dp_j - D_t) * scale); dq_t += g_j R(k_j);
// dk_j += g_j R(q_t). Writes dqkv (B, T, 3C) (its old contents are not used).
template <typename F>
void flash_attention_backward_bf16(F* dqkv, const F* dout, const F* out, const F* lse, const F* qkv,
                                   int B, int T, int C, int NH) {
  const auto R = [](F x) { return F(round_bf16(static_cast<float>(x))); };
  const int HS = C / NH;
  const F scale = F(1) / std::sqrt(F(HS));
  std::fill(dqkv, dqkv + static_cast<int64_t>(B) * T * 3 * C, F(0));  // summed into below
  for (int b = 0; b < B; ++b)
    for (int h = 0; h < NH; ++h)
      for (int t = 0; t < T; ++t) {
        const int64_t qrow = (static_cast<int64_t>(b) * T + t) * 3 * C + h * HS;
        const F* dO = dout + (static_cast<int64_t>(b) * T + t) * C + h * HS;
        const F* O = out + (static_cast<int64_t>(b) * T + t) * C + h * HS;
        F D = 0;
        for (int i = 0; i < HS; ++i) D += dO[i] * O[i];
        const F L = lse[(static_cast<int64_t>(b) * NH + h) * T + t];
        for (int j = 0; j <= t; ++j) {
          const int64_t krow = (static_cast<int64_t>(b) * T + j) * 3 * C + C + h * HS;
          const int64_t vrow = krow + C;
          F dot = 0, dp = 0;
          for (int i = 0; i < HS; ++i) {
            dot += R(qkv[qrow + i]) * R(qkv[krow + i]);
            dp += R(dO[i]) * R(qkv[vrow + i]);
          }
          const F p = std::exp(dot * scale - L);
          const F g = R(p * (dp - D) * scale);
          for (int i = 0; i < HS; ++i) {
            dqkv[vrow + i] += R(p) * R(dO[i]);
            dqkv[qrow + i] += g * R(qkv[krow + i]);
            dqkv[krow + i] += g * R(qkv[qrow + i]);
          }
        }
      }
}

}  // namespace scratchgpt::ref
