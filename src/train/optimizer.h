// optimizer.h: what one optimizer step does to the parameter list: gradient scaling (for
// accumulation), global-norm clipping (torch.nn.utils.clip_grad_norm_) and AdamW
// (torch.optim.AdamW, weight decay only on Params with decay == true, as nanoGPT's two groups).
// clip_grad_norm + adamw_step are the readable pair; optimizer_step does the same in two threaded
// passes (norm, then AdamW with the clip coefficient folded in) with bit-identical parameters.
// Leaves out: other optimizers, mixed precision. Kernels: kernels::global_norm,
// kernels::adamw_update (adamw_step, per Param) and kernels::adamw_update_all (optimizer_step,
// every Param in one pass).
#pragma once

#include <span>
#include <vector>

#include "core/exec_context.h"
#include "nn/language_model.h"
#include "train/train_config.h"

namespace scratchgpt {

// sqrt(sum of every gradient element squared): kernels::global_norm over the Params' gradients
// (threaded, in double over fixed pieces; the same sum with any thread count).
double grad_global_norm(const ExecContext& ex, const std::vector<Param>& params);

// torch's clip_grad_norm_: coef = max_norm / (norm + 1e-6); when coef < 1 every grad *= coef.
// Returns the norm before clipping. max_norm <= 0 only measures.
double clip_grad_norm(const ExecContext& ex, std::vector<Param>& params, double max_norm);

// Multiplies every gradient by s (1/grad_accum: the mean over micro-steps).
void scale_grads(const ExecContext& ex, std::vector<Param>& params, float s);

// What an optimizer step needs besides the learning rate (which the schedule changes every step,
// so it is passed beside it), as llm.c's gpt2_update(model, lr, beta1, beta2, eps, weight_decay,
// t) takes it. Defaults: torch.optim.AdamW's, and no clipping.
struct AdamWConfig {
  float beta1 = 0.9f, beta2 = 0.999f, eps = 1e-8f;
  float weight_decay = 0.01f;  // on Params with decay == true
  float grad_clip = 0.0f;      // the global norm's limit; 0 disables
};
// A run's AdamW hyperparameters.
AdamWConfig adamw_config(const TrainConfig& cfg);

// One AdamW step t (counting from 1) at learning rate lr with cfg's betas, eps, weight decay.
void adamw_step(const ExecContext& ex, std::vector<Param>& params, float lr, const AdamWConfig& cfg,
                int t);

// clip_grad_norm(params, cfg.grad_clip) then adamw_step(params, lr, cfg, t), fused: the clip
// coefficient scales each gradient inside the AdamW kernel, so the gradients are read twice and
// never written (they keep their unclipped values). Returns the norm before clipping. packed:
// weights among the Params also kept packed for --dtype bf16's products, packed again in the
// same pass (kernels::AdamWArray's pairs), each one a Param's value.
double optimizer_step(const ExecContext& ex, std::vector<Param>& params, float lr,
                      const AdamWConfig& cfg, int t,
                      std::span<const kernels::WeightPairsWords> packed = {});
// The same on every Param of model, with its packed weights (LanguageModel::packed_weights),
// which it then tells the model are renewed: how a training step runs it.
double optimizer_step(LanguageModel& model, float lr, const AdamWConfig& cfg, int t);

}  // namespace scratchgpt
