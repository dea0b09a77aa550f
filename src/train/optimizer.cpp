// optimizer.cpp: see optimizer.h.
#include "train/optimizer.h"

#include <cmath>
#include <vector>

#include "kernels/kernels.h"

namespace scratchgpt {

double grad_global_norm(const ExecContext& ex, const std::vector<Param>& params) {
  thread_local std::vector<const float*> x;  // grow once; no allocation in later steps
  thread_local std::vector<int64_t> n;
  x.clear();
  n.clear();
  for (const Param& p : params) {
    x.push_back(p.grad.data);
    n.push_back(p.grad.numel());
  }
  return kernels::global_norm(ex, static_cast<int>(params.size()), x.data(), n.data());
}

// torch's clip coefficient, or 1 when there is nothing to clip.
static float clip_coefficient(double norm, double max_norm) {
  if (max_norm <= 0) return 1.0f;
  const double coef = max_norm / (norm + 1e-6);
  return coef < 1.0 ? static_cast<float>(coef) : 1.0f;
}

double clip_grad_norm(const ExecContext& ex, std::vector<Param>& params, double max_norm) {
  const double norm = grad_global_norm(ex, params);
  const float coef = clip_coefficient(norm, max_norm);
  if (coef != 1.0f) scale_grads(ex, params, coef);
  return norm;
}

void scale_grads(const ExecContext& ex, std::vector<Param>& params, float s) {
  for (Param& p : params) kernels::scale(ex, p.grad.data, p.grad.numel(), s);
}

AdamWConfig adamw_config(const TrainConfig& cfg) {
  return {cfg.beta1, cfg.beta2, cfg.eps, cfg.weight_decay, cfg.grad_clip};
}

void adamw_step(const ExecContext& ex, std::vector<Param>& params, float lr, const AdamWConfig& cfg,
                int t) {
  for (Param& p : params) {
    kernels::adamw_update(ex, p.value.data, p.grad.data, p.m.data, p.v.data, p.value.numel(), lr,
                          cfg.beta1, cfg.beta2, cfg.eps, p.decay ? cfg.weight_decay : 0.0f, t);
  }
}

double optimizer_step(const ExecContext& ex, std::vector<Param>& params, float lr,
                      const AdamWConfig& cfg, int t,
                      std::span<const kernels::WeightPairsWords> packed) {
  const double norm = grad_global_norm(ex, params);
  const float coef = clip_coefficient(norm, cfg.grad_clip);
  thread_local std::vector<kernels::AdamWArray> arrays;  // grows once; no allocation later
  arrays.clear();
  size_t found = 0;
  for (Param& p : params) {
    const kernels::WeightPairsWords* pairs = nullptr;
    for (const kernels::WeightPairsWords& w : packed)
      if (w.weight == p.value.data) pairs = &w;
    found += pairs != nullptr;
    arrays.push_back({p.value.data, p.grad.data, p.m.data, p.v.data, p.value.numel(),
                      p.decay ? cfg.weight_decay : 0.0f, pairs});
  }
  SG_CHECK(found == packed.size(), "optimizer_step: ", packed.size() - found,
           " of the packed weights are not values of the Params");
  kernels::adamw_update_all(ex, static_cast<int>(arrays.size()), arrays.data(), lr, cfg.beta1,
                            cfg.beta2, cfg.eps, t, coef);
  device_synchronize(ex.device);  // the host may read the weights next (a checkpoint)
  return norm;
}

double optimizer_step(LanguageModel& model, float lr, const AdamWConfig& cfg, int t) {
  const std::span<const kernels::WeightPairsWords> packed = model.packed_weights();
  const double norm = optimizer_step(model.exec(), model.params(), lr, cfg, t, packed);
  if (!packed.empty()) model.packed_weights_renewed();
  return norm;
}

}  // namespace scratchgpt
