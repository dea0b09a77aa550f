// train.h: what 'scratchgpt train' does, nanoGPT's train.py: set up (config, data,
// out dir, model, or all of it from a checkpoint on --resume; the weights of one with
// --init-from, nanoGPT's fine-tuning), then the loop: evaluate and save
// every eval_interval steps, one optimizer step (train/train_step.h) at a time, a progress line,
// a clean stop on Ctrl-C; under mpirun, data-parallel over src/dist's Comm (train/train_step.h).
// Leaves out: mixed precision.
#pragma once

#include <cmath>
#include <cstdint>
#include <cstdio>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "core/enum_names.h"

namespace scratchgpt {

// Under mpirun, when the gradients are summed across processes: during the last backward, each
// block's as soon as it is done, on a communication thread (on); after backward (off); or auto:
// on where MPI allows the thread. The same bits either way.
enum class OverlapAllreduce { kAuto, kOn, kOff };
inline constexpr std::pair<OverlapAllreduce, const char*> kOverlapAllreduceNames[] = {
    {OverlapAllreduce::kAuto, "auto"},
    {OverlapAllreduce::kOn, "on"},
    {OverlapAllreduce::kOff, "off"}};

struct TrainOptions {
  std::string preset;  // ignored on resume (the checkpoint's config is the base)
  // Config keys ("": none), under the flags: a JSON object, or nanoGPT's config file form
  // (`key = value` Python literals); nanoGPT's key names are read as ours.
  std::string config_file;
  nlohmann::json overrides = nlohmann::json::object();  // the flags' config keys
  // Command-line words the options did not take: nanoGPT's --key=value overrides (over the config
  // file, under our flags) and, as nanoGPT's `train.py config/file.py`, a config file path.
  std::vector<std::string> extra_args;
  std::string data_dir;
  std::string out_dir;
  bool resume = false;      // continue from out_dir/last.safetensors
  // A checkpoint whose weights (and architecture) start a new run: fresh optimizer and counters,
  // the hyperparameters of the preset (optional; else the checkpoint's), --config and the flags.
  std::string init_from;
  bool overwrite = false;   // allow replacing checkpoints of an earlier run in out_dir
  std::string report;       // "": none; else the report page (run/report.h), redrawn each eval
  std::string device;       // "" or cpu, or cuda (run/exec.h); not recorded: resume anywhere
  std::string simd;         // "": the default SIMD level; avx512, avx2 or scalar (capped)
  OverlapAllreduce overlap_allreduce = OverlapAllreduce::kAuto;  // several processes only
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
