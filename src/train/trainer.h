// trainer.h: the training loop, nanoGPT's train.py on one process: random batches, AdamW with
// warmup + cosine lr, gradient accumulation and global-norm clipping, periodic evaluation on
// train and val, checkpoints (last and best) and exact resume, metrics and a progress line.
// Leaves out: data parallelism (later, through src/dist), mixed precision.
#pragma once

#include <cmath>
#include <cstdint>
#include <cstdio>
#include <nlohmann/json.hpp>
#include <string>

namespace scratchgpt {

struct TrainOptions {
  std::string preset;  // ignored on resume (the checkpoint's config is the base)
  nlohmann::json overrides = nlohmann::json::object();  // config file keys, then flags
  std::string data_dir;
  std::string out_dir;
  bool resume = false;      // continue from out_dir/last.safetensors
  bool overwrite = false;   // allow replacing checkpoints of an earlier run in out_dir
  std::FILE* log = stderr;  // progress and summary
};

struct TrainSummary {
  int64_t iters = 0;  // steps completed in total
  float best_val_loss = INFINITY;
  float last_val_loss = NAN;
  double wall_s = 0;
  double tokens_per_s = 0;
  bool interrupted = false;
};

// Every check that can fail (config, data, out-dir, checkpoint) runs before the first step.
TrainSummary run_training(const TrainOptions& opt);

}  // namespace scratchgpt
