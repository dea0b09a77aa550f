// adamw.h: one AdamW step (torch.optim.AdamW): decoupled weight decay, bias-corrected moments.
//   p -= lr * wd * p;  m = b1 m + (1-b1) g;  v = b2 v + (1-b2) g^2;
//   p -= lr * (m / (1-b1^t)) / (sqrt(v / (1-b2^t)) + eps)
// Fast twin: kernels/cpu/adamw.h.
#pragma once

#include <cmath>
#include <cstdint>

namespace scratchgpt::ref {

// param, grad, m, v (n); step t >= 1.
template <typename F>
void adamw_update(F* param, const F* grad, F* m, F* v, int64_t n, F lr, F beta1, F beta2, F eps,
                  F weight_decay, int t) {
  const F bc1 = F(1) - std::pow(beta1, F(t));
  const F bc2 = F(1) - std::pow(beta2, F(t));
  for (int64_t i = 0; i < n; ++i) {
    param[i] -= lr * weight_decay * param[i];
    m[i] = beta1 * m[i] + (F(1) - beta1) * grad[i];
    v[i] = beta2 * v[i] + (F(1) - beta2) * grad[i] * grad[i];
    const F mhat = m[i] / bc1;
    const F vhat = v[i] / bc2;
    param[i] -= lr * mhat / (std::sqrt(vhat) + eps);
  }
}

}  // namespace scratchgpt::ref
