// matmul.h: the linear layer y = x W^T + b, the scalar reference (weights in nn.Linear layout).
// Fast twin: kernels/cpu/matmul.h (packed, register-blocked, threaded).
#pragma once

#include <cstdint>

namespace scratchgpt::ref {

// out (N, OC) = inp (N, C) @ weight(OC, C)^T + bias (OC) (bias may be null). N is usually B*T.
template <typename F>
void matmul_forward(F* out, const F* inp, const F* weight, const F* bias, int N, int C, int OC) {
  for (int n = 0; n < N; ++n) {
    const F* x = inp + static_cast<int64_t>(n) * C;
    for (int o = 0; o < OC; ++o) {
      const F* w = weight + static_cast<int64_t>(o) * C;
      F acc = bias ? bias[o] : F(0);
      for (int c = 0; c < C; ++c) acc += x[c] * w[c];
      out[static_cast<int64_t>(n) * OC + o] = acc;
    }
  }
}

// Accumulates (+=) into dinp (N, C), dweight (OC, C), dbias (OC); any of them may be null.
// dinp = dout @ W;  dweight = dout^T @ inp;  dbias = sum over N of dout. With accumulate_dinp
// false, dinp is written instead (=, its old contents never read): what a layer whose input
// feeds nothing else wants, without clearing the buffer first. With accumulate_dparams false,
// dweight and dbias are written as 0 + their sums (the bits of adding into cleared arrays).
template <typename F>
void matmul_backward(F* dinp, F* dweight, F* dbias, const F* dout, const F* inp, const F* weight,
                     int N, int C, int OC, bool accumulate_dinp = true,
                     bool accumulate_dparams = true) {
  if (dinp)
    for (int n = 0; n < N; ++n)
      for (int c = 0; c < C; ++c) {
        F acc = 0;
        for (int o = 0; o < OC; ++o)
          acc += dout[static_cast<int64_t>(n) * OC + o] * weight[static_cast<int64_t>(o) * C + c];
        F& d = dinp[static_cast<int64_t>(n) * C + c];
        d = accumulate_dinp ? d + acc : acc;
      }
  if (dweight)
    for (int o = 0; o < OC; ++o)
      for (int c = 0; c < C; ++c) {
        F acc = 0;
        for (int n = 0; n < N; ++n)
          acc += dout[static_cast<int64_t>(n) * OC + o] * inp[static_cast<int64_t>(n) * C + c];
        F& d = dweight[static_cast<int64_t>(o) * C + c];
        d = (accumulate_dparams ? d : F(0)) + acc;
      }
  if (dbias)
    for (int o = 0; o < OC; ++o) {
      F acc = 0;
      for (int n = 0; n < N; ++n) acc += dout[static_cast<int64_t>(n) * OC + o];
      dbias[o] = (accumulate_dparams ? dbias[o] : F(0)) + acc;
    }
}

}  // namespace scratchgpt::ref
