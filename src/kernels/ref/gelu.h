// gelu.h: GELU two ways.
//   gelu_*        the tanh approximation (GPT-2; torch.nn.GELU(approximate="tanh")):
//                 gelu(x) = 0.5 x (1 + tanh(sqrt(2/pi) (x + 0.044715 x^3)))
//   gelu_exact_*  the exact form (nanoGPT; torch.nn.GELU()): x Phi(x), Phi the standard normal CDF,
//                 gelu(x) = 0.5 x (1 + erf(x / sqrt(2))) = 0.5 x erfc(-x / sqrt(2)); the erfc form
//                 keeps its relative accuracy in the negative tail, where 1 + erf cancels.
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

// Writes dinp = dout * gelu'(inp) (dinp is not read)
template <typename F>
void gelu_backward(F* dinp, const F* inp, const F* dout, int64_t n) {
  const F s = std::sqrt(F(2) / F(M_PI));
  for (int64_t i = 0; i < n; ++i) {
    F x = inp[i];
    F u = s * (x + F(0.044715) * x * x * x);
    F th = std::tanh(u);
    F sech2 = F(1) - th * th;
    F grad = F(0.5) * (F(1) + th) + F(0.5) * x * sech2 * s * (F(1) + F(3) * F(0.044715) * x * x);
    dinp[i] = dout[i] * grad;
  }
}

template <typename F>
void gelu_exact_forward(F* out, const F* inp, int64_t n) {
  const F r = F(1) / std::sqrt(F(2));
  for (int64_t i = 0; i < n; ++i) {
    F x = inp[i];
    out[i] = F(0.5) * x * std::erfc(-x * r);
  }
}

// Writes dinp = dout * gelu'(inp) (dinp is not read), gelu'(x) = Phi(x) + x phi(x), phi the normal
// density.
template <typename F>
void gelu_exact_backward(F* dinp, const F* inp, const F* dout, int64_t n) {
  const F r = F(1) / std::sqrt(F(2));
  const F k = F(1) / std::sqrt(F(2) * F(M_PI));
  for (int64_t i = 0; i < n; ++i) {
    F x = inp[i];
    F cdf = F(0.5) * std::erfc(-x * r);
    F pdf = k * std::exp(F(-0.5) * x * x);
    dinp[i] = dout[i] * (cdf + x * pdf);
  }
}

}  // namespace scratchgpt::ref
