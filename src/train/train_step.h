// train_step.h: one optimizer step of nanoGPT's train.py: zero the gradients, grad_accum
// micro-steps (forward on the stream's next batch, backward), the mean gradient, global-norm
// clipping and AdamW. Leaves out: mixed precision, loss scaling, the data-parallel all-reduce.
#pragma once

#include <cstdint>

#include "nn/language_model.h"
#include "train/batch_stream.h"
#include "train/train_config.h"

namespace scratchgpt {

struct StepResult {
  float loss = 0;        // the mean over the micro-steps
  double grad_norm = 0;  // the global gradient norm before clipping
};

// Step iter (counting from 0; AdamW's step count is iter + 1) at learning rate lr. A loss that is
// not finite is an Error naming the step and the fix.
StepResult train_step(LanguageModel& model, BatchStream& batches, const TrainConfig& cfg,
                      double lr, int64_t iter);

}  // namespace scratchgpt
