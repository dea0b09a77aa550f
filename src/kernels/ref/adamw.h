// adamw.h: one AdamW step (torch.optim.AdamW): decoupled weight decay, bias-corrected moments.
//   p *= 1 - lr*wd;  m = b1 m + (1-b1) g;  v = b2 v + (1-b2) g^2;
//   p -= (lr / (1-b1^t)) * m / (sqrt(v) / sqrt(1-b2^t) + eps)
// The operations follow torch 1.13's single-tensor AdamW in the same order (scalars computed in
// double as Python does), so float results agree with PyTorch to rounding. Leaves out: amsgrad,
// maximize. grad_scale multiplies each gradient first (a clip coefficient folded in: the same
// float product clip_grad_norm_'s g.mul_(coef) makes). Fast twin: kernels/cpu/adamw.h.
#pragma once

#include <cmath>
#include <cstdint>

namespace scratchgpt::ref {

// The per-step scalars of torch's _single_tensor_adamw, computed on the Python side in double
// and used in F. Shared with the fast twin so both compute them the same way.
template <typename F>
struct AdamWScalars {
  F decay, one_minus_b1, one_minus_b2, step_size, bc2_sqrt;
  AdamWScalars(F lr, F beta1, F beta2, F weight_decay, int t) {
    const double bc1 = 1.0 - std::pow(static_cast<double>(beta1), t);  // bias_correction1
    const double bc2 = 1.0 - std::pow(static_cast<double>(beta2), t);  // bias_correction2
    decay = static_cast<F>(1.0 - static_cast<double>(lr) * static_cast<double>(weight_decay));
    one_minus_b1 = static_cast<F>(1.0 - static_cast<double>(beta1));
    one_minus_b2 = static_cast<F>(1.0 - static_cast<double>(beta2));
    step_size = static_cast<F>(static_cast<double>(lr) / bc1);
    bc2_sqrt = static_cast<F>(std::sqrt(bc2));
  }
};

// param, grad, m, v (n); step t >= 1 (the step being taken, counting from 1).
template <typename F>
void adamw_update(F* param, const F* grad, F* m, F* v, int64_t n, F lr, F beta1, F beta2, F eps,
                  F weight_decay, int t, F grad_scale = F(1)) {
  const AdamWScalars<F> s(lr, beta1, beta2, weight_decay, t);
  const F decay = s.decay, one_minus_b1 = s.one_minus_b1, one_minus_b2 = s.one_minus_b2;
  const F step_size = s.step_size, bc2_sqrt = s.bc2_sqrt;
  for (int64_t i = 0; i < n; ++i) {
    const F g = grad_scale == F(1) ? grad[i] : grad[i] * grad_scale;
    param[i] *= decay;                                 // param.mul_(1 - lr * wd)
    m[i] = m[i] * beta1 + one_minus_b1 * g;            // exp_avg.mul_(b1).add_(g, alpha=1-b1)
    v[i] = v[i] * beta2 + one_minus_b2 * g * g;        // exp_avg_sq.mul_(b2).addcmul_(g, g)
    const F denom = std::sqrt(v[i]) / bc2_sqrt + eps;  // (v.sqrt() / sqrt(bc2)).add_(eps)
    param[i] += -step_size * m[i] / denom;             // param.addcdiv_(m, denom, value=-step_size)
  }
}

}  // namespace scratchgpt::ref
