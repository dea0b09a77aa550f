// train_step.cpp: see train_step.h.
#include "train/train_step.h"

#include <cmath>

#include "core/check.h"
#include "train/optimizer.h"

namespace scratchgpt {

StepResult train_step(LanguageModel& model, BatchStream& batches, const TrainConfig& cfg,
                      double lr, int64_t iter) {
  model.zero_grad();
  double loss_sum = 0;
  for (int micro = 0; micro < cfg.grad_accum; ++micro) {
    loss_sum += batches.forward(model);
    model.backward();
  }
  std::vector<Param>& params = model.params();
  if (cfg.grad_accum > 1) scale_grads(params, 1.0f / static_cast<float>(cfg.grad_accum));
  StepResult r;
  r.grad_norm =
      optimizer_step(params, static_cast<float>(lr), cfg, static_cast<int>(iter + 1));
  r.loss = static_cast<float>(loss_sum / cfg.grad_accum);
  SG_CHECK(std::isfinite(r.loss), "the loss became ", r.loss, " at iter ", iter,
           ": lower --lr or enable --grad-clip");
  return r;
}

}  // namespace scratchgpt
