// train_step.h: one optimizer step of nanoGPT's train.py, on one process or many: each process
// runs its share of the grad_accum micro-steps (forward on the stream's batch, backward into
// fresh gradients, added in order), the gradients are summed across processes (dist/comm.h,
// in rank order), then every process takes the same mean, clips and steps AdamW. With one
// micro-step per process the sum is the one process's sum, so losses and weights are the same
// bits on 1 or N processes. With overlap, the last micro-step's backward hands each finished
// range of the gradient slab (block L-1, ..., block 0, as LanguageModel::backward(ready) reports
// them) to a communication thread (dist/background_reducer.h) that sums it while backward computes
// the earlier blocks; the sums are the same bits as the reduction after backward.
// Leaves out: mixed precision.
#pragma once

#include <cstdint>
#include <memory>
#include <vector>

#include "core/arena.h"
#include "dist/background_reducer.h"
#include "dist/comm.h"
#include "nn/language_model.h"
#include "train/batch_stream.h"
#include "train/optimizer.h"
#include "train/train_config.h"

namespace scratchgpt {

struct StepResult {
  float loss = 0;        // the mean over all micro-steps of all processes
  double grad_norm = 0;  // the global gradient norm before clipping
  double wait_s = 0;     // seconds waiting for the slowest process to finish its micro-steps
  double comm_s = 0;     // seconds then summing gradients and gathering losses across processes
  // With overlap: comm_s is the time the reduction added after backward (waiting for the slowest
  // process included, wait_s is 0), and overlap_s the seconds the communication thread summed.
  double overlap_s = 0;
};

class TrainStep {
 public:
  // cfg.grad_accum must be a multiple of comm.size() (checked: an Error naming the fix). overlap:
  // sum the gradients during the last backward, on a communication thread (only with several
  // processes; the caller checks comm.allows_comm_thread()).
  TrainStep(LanguageModel& model, BatchStream& batches, const TrainConfig& cfg, Comm& comm,
            bool overlap = false);
  bool overlapped() const { return reducer_ != nullptr; }

  // Step iter (counting from 0; AdamW's step count is iter + 1) at learning rate lr. A loss that
  // is not finite is an Error naming the step and the fix.
  StepResult run(double lr, int64_t iter);

 private:
  LanguageModel& model_;
  BatchStream& batches_;
  const TrainConfig& cfg_;
  const AdamWConfig adamw_;  // cfg_'s
  Comm& comm_;
  int first_ = 0, count_ = 1;        // this process's micro-steps: [first_, first_ + count_)
  Arena accum_;                      // the sum of this process's micro-step gradients (count_ > 1)
  std::vector<float> losses_, all_losses_;  // (count_), (grad_accum)
  std::unique_ptr<BackgroundReducer> reducer_;  // the communication thread (overlap only)
};

}  // namespace scratchgpt
