// train_config.h: TrainConfig, every hyperparameter of a training run (model shape included), the
// named presets, and their JSON form (config files, checkpoints). Later sources win:
//   preset (or the checkpoint's config on --resume)  <  --config FILE  <  command-line flags.
// Leaves out: learning-rate schedules other than nanoGPT's warmup + cosine (or constant).
#pragma once

#include <cstdint>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "nn/gpt_config.h"

namespace scratchgpt {

struct TrainConfig {
  std::string preset;         // name it started from ("" for none)
  std::string model = "gpt";  // "gpt" or "bigram"
  GPTConfig gpt;              // model shape; gpt.block_size is also the bigram's T
  int batch_size = 12;        // B per micro-step
  int grad_accum = 1;         // micro-steps per optimizer step
  int max_iters = 2000;
  double lr = 1e-3;  // peak learning rate (double, as Python computes the schedule)
  double min_lr = 1e-4;
  bool decay_lr = true;  // warmup + cosine; false: constant lr
  int warmup_iters = 100;
  int lr_decay_iters = 2000;
  float weight_decay = 0.1f;  // on Params with decay == true (2-D weights)
  float beta1 = 0.9f, beta2 = 0.99f, eps = 1e-8f;
  float grad_clip = 1.0f;  // global-norm clip; 0 disables
  int eval_interval = 250;
  int eval_iters = 20;
  int log_interval = 10;  // plain progress lines (not a terminal) every this many iters
  uint64_t seed = 1337;
  int threads = 0;  // 0: all cores
  // matmul backend (cpu/matmul_backend.h): "auto", "own" or "onednn". A run records the one it
  // used, so --resume continues on the same backend (their results differ in the last bits).
  std::string matmul = "auto";
  // Where the random numbers come from:
  //   "split"    one generator per purpose: init from seed, training batches from seed + 1,
  //              dropout from seed + 2, each evaluation from (seed, iter) alone; changing
  //              eval_interval or eval_iters leaves the training run as it was.
  //   "nanogpt"  nanoGPT's train.py: one generator, torch.manual_seed(seed), drawn in its order
  //              (the model's init; the first batch; then per step: the evaluation's batches when
  //              it is due, the forward's dropout masks, the next batch, prefetched before the
  //              backward). Our Rng is torch's, so init, batches and evaluation batches are
  //              nanoGPT's own for the same seed.
  std::string rng_stream = "split";

  nlohmann::json to_json() const;
  // Applies the keys present in j (names as in to_json); an unknown key or a wrong type is an
  // Error naming it.
  void apply_json(const nlohmann::json& j);
  // Every combination that cannot work is a one-line Error naming the fix.
  void validate() const;
};

// "bigram", "shakespeare-char", "shakespeare-char-small"; an unknown name is an Error listing them.
TrainConfig preset_config(const std::string& name);
std::vector<std::string> preset_names();

}  // namespace scratchgpt
