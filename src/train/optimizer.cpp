// optimizer.cpp: see optimizer.h.
#include "train/optimizer.h"

#include <cmath>

#include "kernels/cpu/adamw.h"

namespace scratchgpt {

double grad_global_norm(const std::vector<Param>& params) {
  double sum = 0;
  for (const Param& p : params)
    for (const float g : p.grad) sum += static_cast<double>(g) * g;
  return std::sqrt(sum);
}

double clip_grad_norm(std::vector<Param>& params, double max_norm) {
  const double norm = grad_global_norm(params);
  if (max_norm <= 0) return norm;
  const double coef = max_norm / (norm + 1e-6);
  if (coef < 1.0) scale_grads(params, static_cast<float>(coef));
  return norm;
}

void scale_grads(std::vector<Param>& params, float s) {
  for (Param& p : params)
    for (float& g : p.grad) g *= s;
}

void adamw_step(std::vector<Param>& params, float lr, const TrainConfig& cfg, int t) {
  for (Param& p : params) {
    cpu::adamw_update(p.value.data, p.grad.data, p.m.data, p.v.data, p.value.numel(), lr, cfg.beta1,
                      cfg.beta2, cfg.eps, p.decay ? cfg.weight_decay : 0.0f, t);
  }
}

}  // namespace scratchgpt
