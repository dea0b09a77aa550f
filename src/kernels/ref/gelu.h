// gelu.h: GELU with the tanh approximation (GPT-2; torch.nn.GELU(approximate="tanh")).
// gelu(x) = 0.5 x (1 + tanh(sqrt(2/pi) (x + 0.044715 x^3)))
#pragma once

#include <cmath>
#include <cstdint>

namespace scratchgpt::ref {

template <typename F>
void gelu_forward(F* out, const F* inp, int64_t n) {
  const F s = std::sqrt(F(2) / F(M_PI));
  for (int64_t i = 0; i < n; ++i) {
    F x = inp[i];
    out[i] = F(0.5) * x * (F(1) + std::tanh(s * (x + F(0.044715) * x * x * x)));
  }
}

// Accumulates: dinp += dout * gelu'(inp)
template <typename F>
void gelu_backward(F* dinp, const F* inp, const F* dout, int64_t n) {
  const F s = std::sqrt(F(2) / F(M_PI));
  for (int64_t i = 0; i < n; ++i) {
    F x = inp[i];
    F u = s * (x + F(0.044715) * x * x * x);
    F th = std::tanh(u);
    F sech2 = F(1) - th * th;
    F grad = F(0.5) * (F(1) + th) + F(0.5) * x * sech2 * s * (F(1) + F(3) * F(0.044715) * x * x);
    dinp[i] += dout[i] * grad;
  }
}

}  // namespace scratchgpt::ref
