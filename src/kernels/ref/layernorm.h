// layernorm.h: layer normalisation over the last dimension, the scalar reference.
// y = (x - mean) / sqrt(var + eps) * weight + bias, var biased (as torch.nn.LayerNorm).
// Fast twin: kernels/cpu/layernorm.h.
#pragma once

#include <cmath>
#include <cstdint>

namespace scratchgpt::ref {

// out (N, C); mean, rstd (N) saved for backward; weight (C); bias (C) or nullptr for a bias-free
// LayerNorm (nanoGPT's bias=False).
template <typename F>
void layernorm_forward(F* out, F* mean, F* rstd, const F* inp, const F* weight, const F* bias,
                       int N, int C, F eps = F(1e-5)) {
  for (int n = 0; n < N; ++n) {
    const F* x = inp + static_cast<int64_t>(n) * C;
    F m = 0;
    for (int c = 0; c < C; ++c) m += x[c];
    m /= C;
    F v = 0;
    for (int c = 0; c < C; ++c) v += (x[c] - m) * (x[c] - m);
    v /= C;
    F s = F(1) / std::sqrt(v + eps);
    F* y = out + static_cast<int64_t>(n) * C;
    for (int c = 0; c < C; ++c) y[c] = (x[c] - m) * s * weight[c] + (bias ? bias[c] : F(0));
    mean[n] = m;
    rstd[n] = s;
  }
}

// Accumulates into dinp (N, C), dweight (C), dbias (C); dbias may be null (bias-free LayerNorm).
// With xhat = (x - mean) * rstd and g = dout * weight:
//   dx = rstd * (g - mean(g) - xhat * mean(g * xhat))
template <typename F>
void layernorm_backward(F* dinp, F* dweight, F* dbias, const F* dout, const F* inp, const F* weight,
                        const F* mean, const F* rstd, int N, int C) {
  for (int n = 0; n < N; ++n) {
    const F* x = inp + static_cast<int64_t>(n) * C;
    const F* dy = dout + static_cast<int64_t>(n) * C;
    F* dx = dinp + static_cast<int64_t>(n) * C;
    F g_mean = 0, gx_mean = 0;
    for (int c = 0; c < C; ++c) {
      F xhat = (x[c] - mean[n]) * rstd[n];
      F g = dy[c] * weight[c];
      g_mean += g;
      gx_mean += g * xhat;
    }
    g_mean /= C;
    gx_mean /= C;
    for (int c = 0; c < C; ++c) {
      F xhat = (x[c] - mean[n]) * rstd[n];
      F g = dy[c] * weight[c];
      if (dbias) dbias[c] += dy[c];
      dweight[c] += dy[c] * xhat;
      dx[c] += rstd[n] * (g - g_mean - xhat * gx_mean);
    }
  }
}

}  // namespace scratchgpt::ref
