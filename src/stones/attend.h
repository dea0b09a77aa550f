// attend.h: the small pieces every attention stepping stone shares, templated on the float type F
// so that every backward is gradient-checked in double: plain matrix products, Linear<F> (an
// owning nn.Linear; init in attend.cpp), nn.Dropout's mask, the two causal masks and the three
// ways of scaling, attend_forward/attend_backward (one head's scaled-dot-product attention with an
// optional causal mask and dropout) and their loop over a batch of heads.
// Leaves out: speed. The engine's twin: kernels/cpu/attention.h.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <vector>

#include "core/check.h"
#include "core/rng.h"
#include "kernels/ref/matmul.h"
#include "kernels/ref/softmax.h"

namespace scratchgpt::stones {

// out (M, N) = A (M, K) @ B (K, N), all row-major.
template <typename F>
void mm(F* out, const F* A, const F* Bm, int M, int K, int N) {
  for (int m = 0; m < M; ++m)
    for (int n = 0; n < N; ++n) {
      F acc = 0;
      for (int k = 0; k < K; ++k)
        acc += A[static_cast<int64_t>(m) * K + k] * Bm[static_cast<int64_t>(k) * N + n];
      out[static_cast<int64_t>(m) * N + n] = acc;
    }
}

// Backward of out = A @ B: accumulates dA += dout @ B^T and dB += A^T @ dout (either may be null).
template <typename F>
void mm_backward(F* dA, F* dB, const F* dout, const F* A, const F* Bm, int M, int K, int N) {
  for (int m = 0; m < M; ++m)
    for (int k = 0; k < K; ++k) {
      const F a = A[static_cast<int64_t>(m) * K + k];
      F acc = 0;
      for (int n = 0; n < N; ++n) {
        const F g = dout[static_cast<int64_t>(m) * N + n];
        acc += g * Bm[static_cast<int64_t>(k) * N + n];
        if (dB) dB[static_cast<int64_t>(k) * N + n] += a * g;
      }
      if (dA) dA[static_cast<int64_t>(m) * K + k] += acc;
    }
}

// nn.Linear(C, OC, bias) owning its weights: y = x W^T + b with W (OC, C). Kernel: ref::matmul.
template <typename F>
struct Linear {
  int C = 0, OC = 0;
  bool has_bias = false;
  std::vector<F> weight, weight_grad;  // (OC, C)
  std::vector<F> bias, bias_grad;      // (OC), empty without bias
  std::vector<F> x;                    // (N, C) saved by forward
  int N = 0;

  Linear() = default;
  Linear(int in_features, int out_features, bool with_bias)
      : C(in_features),
        OC(out_features),
        has_bias(with_bias),
        weight(static_cast<size_t>(OC) * C),
        weight_grad(weight.size()),
        bias(with_bias ? OC : 0),
        bias_grad(bias.size()) {}

  // nn.Linear's constructor draws (kaiming-uniform weight, then bias), as torch draws them.
  void init(Rng& rng);
  // out (N, OC) = inp (N, C) W^T + b; saves inp.
  void forward(F* out, const F* inp, int n) {
    N = n;
    x.assign(inp, inp + static_cast<int64_t>(n) * C);
    ref::matmul_forward(out, inp, weight.data(), has_bias ? bias.data() : nullptr, n, C, OC);
  }
  // Backward of "out = inp @ W^T + b": dinp += dout W (dinp may be null), dW += dout^T inp,
  // db += sum_n dout.
  void backward(F* dinp, const F* dout) {
    ref::matmul_backward(dinp, weight_grad.data(), has_bias ? bias_grad.data() : nullptr, dout,
                         x.data(), weight.data(), N, C, OC);
  }
  void zero_grad() {
    std::fill(weight_grad.begin(), weight_grad.end(), F(0));
    std::fill(bias_grad.begin(), bias_grad.end(), F(0));
  }
};

// nn.Dropout(p) on n values in training: the scaled keep mask (0 or 1/(1-p)) drawn exactly as
// torch draws it. Eval (rng null) and p == 0 draw nothing and give an empty mask (torch skips the
// draw too).
template <typename F>
std::vector<F> draw_dropout_mask(Rng* rng, int64_t n, float p) {
  std::vector<F> m;
  if (rng == nullptr || p <= 0.0f) return m;
  std::vector<float> noise(static_cast<size_t>(n));
  // nn.Dropout: noise = empty_like(x).bernoulli_(1 - p).div_(1 - p); out = x * noise
  rng->dropout_noise(noise.data(), n, static_cast<double>(p));
  m.assign(noise.begin(), noise.end());
  return m;
}

// How attention keeps a token from looking ahead.
enum class CausalMask {
  kNone,         // every token sees every token (ch. 3.3-3.4)
  kNegInf,       // scores above the diagonal set to -inf before softmax (masked_fill)
  kRenormalise,  // softmax over all scores, zero above the diagonal, divide by the row sums
};

// How the scores are scaled: PyTorch rounds differently for "s / sqrt(HS)" (the book) and
// "s * HS**-0.5" (the lecture), so each stepping stone does what its text does.
enum class Scale { kNone, kDivideSqrt, kMultiplyInvSqrt };

template <typename F>
F apply_scale(F s, Scale how, int HS) {
  if (how == Scale::kDivideSqrt) return s / static_cast<F>(std::sqrt(static_cast<double>(HS)));
  if (how == Scale::kMultiplyInvSqrt)
    return s * static_cast<F>(std::pow(static_cast<double>(HS), -0.5));
  return s;
}

// One head of scaled-dot-product attention over one sequence. q, k, v: T rows of HS values, row
// stride ld (so a head can be a column slice of a (T, NH*HS) matrix); out: T rows, stride ldo.
// scores (T, T): q k^T, -inf where masked (kNegInf) - what the book prints as "masked".
// weights (T, T): softmax(scale(scores)), zeros above the diagonal when causal.
// drop (T, T): scaled dropout mask (0 or 1/(1-p)) or nullptr.  out = (weights * drop) v.
template <typename F>
void attend_forward(F* out, int ldo, F* scores, F* weights, const F* q, const F* k, const F* v,
                    int ld, int T, int HS, CausalMask mask, Scale scale, const F* drop) {
  const F neg_inf = -std::numeric_limits<F>::infinity();
  std::vector<F> z(static_cast<size_t>(T) * T);  // (T, T) scaled scores
  for (int t = 0; t < T; ++t)
    for (int s = 0; s < T; ++s) {
      F dot = 0;
      for (int i = 0; i < HS; ++i)
        dot += q[static_cast<int64_t>(t) * ld + i] * k[static_cast<int64_t>(s) * ld + i];
      const bool hidden = s > t && mask == CausalMask::kNegInf;
      scores[t * T + s] = hidden ? neg_inf : dot;
      z[t * T + s] = hidden ? neg_inf : apply_scale(dot, scale, HS);
    }
  ref::softmax_forward(weights, z.data(), T, T);
  if (mask == CausalMask::kRenormalise) {
    // The book's first attempt: zero the future after softmax, then make rows sum to one again.
    for (int t = 0; t < T; ++t) {
      F sum = 0;
      for (int s = 0; s < T; ++s) {
        if (s > t) weights[t * T + s] = 0;
        sum += weights[t * T + s];
      }
      for (int s = 0; s < T; ++s) weights[t * T + s] /= sum;
    }
  }
  for (int t = 0; t < T; ++t) {
    F* o = out + static_cast<int64_t>(t) * ldo;
    for (int i = 0; i < HS; ++i) o[i] = 0;
    for (int s = 0; s < T; ++s) {
      const F a = weights[t * T + s] * (drop ? drop[t * T + s] : F(1));
      for (int i = 0; i < HS; ++i) o[i] += a * v[static_cast<int64_t>(s) * ld + i];
    }
  }
}

// Accumulates dq, dk, dv (same layout as q, k, v) from dout. Both causal methods compute the same
// function (softmax restricted to s <= t), so one backward serves them.
template <typename F>
void attend_backward(F* dq, F* dk, F* dv, const F* dout, int ldo, const F* weights, const F* q,
                     const F* k, const F* v, int ld, int T, int HS, Scale scale, const F* drop) {
  std::vector<F> dw(static_cast<size_t>(T) * T), dz(static_cast<size_t>(T) * T, F(0));
  for (int t = 0; t < T; ++t) {
    const F* g = dout + static_cast<int64_t>(t) * ldo;
    for (int s = 0; s < T; ++s) {
      // out[t] = sum_s weights[t,s] * drop[t,s] * v[s]
      const F m = drop ? drop[t * T + s] : F(1);
      F dot = 0;
      for (int i = 0; i < HS; ++i) {
        dot += g[i] * v[static_cast<int64_t>(s) * ld + i];
        dv[static_cast<int64_t>(s) * ld + i] += weights[t * T + s] * m * g[i];
      }
      dw[t * T + s] = dot * m;
    }
  }
  // weights = softmax(z): dz = weights * (dw - sum(weights * dw)); masked entries have weight 0.
  ref::softmax_backward(dz.data(), dw.data(), weights, T, T);
  // z = scale(q . k)
  const F unit = apply_scale(F(1), scale, HS);
  for (int t = 0; t < T; ++t)
    for (int s = 0; s < T; ++s) {
      const F g = dz[t * T + s] * unit;
      if (g == F(0)) continue;
      for (int i = 0; i < HS; ++i) {
        dq[static_cast<int64_t>(t) * ld + i] += g * k[static_cast<int64_t>(s) * ld + i];
        dk[static_cast<int64_t>(s) * ld + i] += g * q[static_cast<int64_t>(t) * ld + i];
      }
    }
}

// A batch of heads: B sequences of T rows, each row NH heads of HS values side by side, i.e.
// (B, T, NH*HS) read as .view(B, T, NH, HS).transpose(1, 2): head h of sequence b is the column
// slice [h*HS, (h+1)*HS) of that sequence's rows (no copy), and its (T, T) scores, weights and
// dropout mask are block (b, h) of (B, NH, T, T). One head (NH = 1) is the plain (B, T, HS).
struct Heads {
  int B = 0, NH = 0, T = 0, HS = 0;

  // fn(io, tt) for every head in order (b, then h): io where its rows begin in (B, T, NH*HS),
  // tt where its (T, T) block begins in (B, NH, T, T).
  template <typename Fn>
  void for_each(Fn fn) const {
    for (int b = 0; b < B; ++b)
      for (int h = 0; h < NH; ++h)
        fn((static_cast<int64_t>(b) * T * NH + h) * HS, (static_cast<int64_t>(b) * NH + h) * T * T);
  }
};

// attend_forward for every head of the batch: out, q, k, v (B, T, NH*HS); scores, weights
// (B, NH, T, T); drop the same, or empty (no dropout).
template <typename F>
void attend_heads_forward(F* out, F* scores, F* weights, const F* q, const F* k, const F* v,
                          const Heads& hs, CausalMask mask, Scale scale,
                          const std::vector<F>& drop) {
  const int ld = hs.NH * hs.HS;
  hs.for_each([&](int64_t io, int64_t tt) {
    attend_forward(out + io, ld, scores + tt, weights + tt, q + io, k + io, v + io, ld, hs.T, hs.HS,
                   mask, scale, drop.empty() ? nullptr : drop.data() + tt);
  });
}

// attend_backward for every head of the batch: accumulates dq, dk, dv (B, T, NH*HS) from dout.
template <typename F>
void attend_heads_backward(F* dq, F* dk, F* dv, const F* dout, const F* weights, const F* q,
                           const F* k, const F* v, const Heads& hs, Scale scale,
                           const std::vector<F>& drop) {
  const int ld = hs.NH * hs.HS;
  hs.for_each([&](int64_t io, int64_t tt) {
    attend_backward(dq + io, dk + io, dv + io, dout + io, ld, weights + tt, q + io, k + io, v + io,
                    ld, hs.T, hs.HS, scale, drop.empty() ? nullptr : drop.data() + tt);
  });
}

// Casts a float buffer drawn by Rng into F.
template <typename F>
void assign_from_float(std::vector<F>& dst, const std::vector<float>& src) {
  dst.assign(src.begin(), src.end());
}

}  // namespace scratchgpt::stones
