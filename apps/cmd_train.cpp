// cmd_train.cpp: 'scratchgpt train': options -> TrainOptions; src/run/train.h does the work.
// Precedence: preset (or the checkpoint's config with --resume) < --config FILE < flags.
#include <cstdio>
#include <memory>

#include "commands.h"
#include "core/check.h"
#include "data/file_io.h"
#include "train/train_config.h"
#include "run/train.h"

namespace scratchgpt::cli {

namespace {

struct TrainFlags {
  std::string preset, data_dir, out_dir, config;
  bool resume = false, overwrite = false;
  int n_layer = 0, n_head = 0, n_embd = 0, block_size = 0, batch_size = 0, grad_accum = 0;
  int max_iters = 0, warmup_iters = 0, lr_decay_iters = 0, eval_interval = 0, eval_iters = 0;
  int log_interval = 0, threads = 0;
  double lr = 0, min_lr = 0;
  float dropout = 0, weight_decay = 0, beta1 = 0, beta2 = 0, grad_clip = 0;
  bool decay_lr = true, bias = false, tied = false;
  int64_t seed = 0;
  std::string activation, model, matmul, rng_stream;
};

}  // namespace

void register_train(CLI::App& app) {
  auto f = std::make_shared<TrainFlags>();
  auto* cmd = app.add_subcommand(
      "train",
      "Train a character-level model on a prepared dataset; checkpoints last.safetensors and "
      "best.safetensors in --out-dir. Ctrl-C stops cleanly after the current step.");
  cmd->add_option("--preset", f->preset,
                  "bigram | shakespeare-char | shakespeare-char-small (not needed with --resume)");
  cmd->add_option("--data-dir", f->data_dir, "directory written by 'scratchgpt prepare'")
      ->required();
  cmd->add_option("--out-dir", f->out_dir, "where checkpoints and metrics.jsonl go")->required();
  cmd->add_flag("--resume", f->resume, "continue exactly from --out-dir/last.safetensors");
  cmd->add_flag("--overwrite", f->overwrite, "replace the checkpoints of an earlier run");
  cmd->add_option("--config", f->config, "JSON file of config keys (as in checkpoints' config)");
  // One entry per hyperparameter: flag name, JSON key.
  std::vector<std::pair<CLI::Option*, std::string>> keys = {
      {cmd->add_option("--model", f->model, "gpt | bigram"), "model"},
      {cmd->add_option("--n-layer", f->n_layer, "transformer blocks L"), "n_layer"},
      {cmd->add_option("--n-head", f->n_head, "attention heads NH"), "n_head"},
      {cmd->add_option("--n-embd", f->n_embd, "embedding width C"), "n_embd"},
      {cmd->add_option("--block-size", f->block_size, "context length T"), "block_size"},
      {cmd->add_option("--batch-size", f->batch_size, "batch size B per micro-step"), "batch_size"},
      {cmd->add_option("--dropout", f->dropout, "dropout probability"), "dropout"},
      {cmd->add_option("--activation", f->activation, "relu | gelu (tanh approximation, GPT-2) | gelu-exact (erf, nanoGPT)"), "activation"},
      {cmd->add_option("--bias", f->bias, "biases in Linear and LayerNorm (true/false)"), "bias"},
      {cmd->add_option("--tied", f->tied, "tie the output head to wte (true/false)"), "tied"},
      {cmd->add_option("--lr", f->lr, "peak learning rate"), "lr"},
      {cmd->add_option("--min-lr", f->min_lr, "final learning rate of the cosine"), "min_lr"},
      {cmd->add_option("--decay-lr", f->decay_lr, "warmup + cosine schedule (true/false)"),
       "decay_lr"},
      {cmd->add_option("--max-iters", f->max_iters, "optimizer steps in total"), "max_iters"},
      {cmd->add_option("--warmup-iters", f->warmup_iters, "linear warmup steps"), "warmup_iters"},
      {cmd->add_option("--lr-decay-iters", f->lr_decay_iters, "step where the cosine ends"),
       "lr_decay_iters"},
      {cmd->add_option("--weight-decay", f->weight_decay, "AdamW weight decay (2-D weights)"),
       "weight_decay"},
      {cmd->add_option("--beta1", f->beta1, "AdamW beta1"), "beta1"},
      {cmd->add_option("--beta2", f->beta2, "AdamW beta2"), "beta2"},
      {cmd->add_option("--grad-clip", f->grad_clip, "global gradient norm clip (0: off)"),
       "grad_clip"},
      {cmd->add_option("--grad-accum", f->grad_accum, "micro-steps per optimizer step"),
       "grad_accum"},
      {cmd->add_option("--eval-interval", f->eval_interval, "evaluate every this many steps"),
       "eval_interval"},
      {cmd->add_option("--eval-iters", f->eval_iters, "batches per evaluation"), "eval_iters"},
      {cmd->add_option("--log-interval", f->log_interval, "plain progress line interval"),
       "log_interval"},
      {cmd->add_option("--seed", f->seed, "random seed (init, batches, dropout)")
           ->check(CLI::NonNegativeNumber),
       "seed"},
      {cmd->add_option("--threads", f->threads, "worker threads (0: all cores)"), "threads"},
      {cmd->add_option("--matmul", f->matmul,
                       "matmul backend: auto (default: onednn in a build with oneDNN, else own) | "
                       "own (our GEMM) | onednn"),
       "matmul"},
      {cmd->add_option("--rng-stream", f->rng_stream,
                       "split (a generator per purpose: evaluations never move the training "
                       "batches) | nanogpt (one generator in nanoGPT's train.py order: its init, "
                       "batches and evaluation batches for the same seed). Default: nanogpt for "
                       "the shakespeare-char presets, split for bigram"),
       "rng_stream"},
  };
  cmd->callback([f, keys] {
    SG_CHECK(!(f->resume && f->overwrite),
             "--resume and --overwrite contradict each other: --resume continues the run in "
             "--out-dir, --overwrite replaces it; pass one");
    TrainOptions opt;
    opt.preset = f->preset;
    opt.data_dir = f->data_dir;
    opt.out_dir = f->out_dir;
    opt.resume = f->resume;
    opt.overwrite = f->overwrite;
    nlohmann::json over = nlohmann::json::object();
    if (!f->config.empty()) {
      try {
        over = nlohmann::json::parse(read_file(f->config));
      } catch (const nlohmann::json::exception& e) {
        fail("--config ", f->config, " is not valid JSON (", e.what(), ")");
      }
      SG_CHECK(over.is_object(), "--config ", f->config, " must hold a JSON object");
      // A throwaway config validates the keys now, before any work.
      TrainConfig probe;
      probe.apply_json(over);
    }
    const nlohmann::json flags = [&] {
      nlohmann::json j;
      j["model"] = f->model;
      j["n_layer"] = f->n_layer;
      j["n_head"] = f->n_head;
      j["n_embd"] = f->n_embd;
      j["block_size"] = f->block_size;
      j["batch_size"] = f->batch_size;
      j["dropout"] = f->dropout;
      j["activation"] = f->activation;
      j["bias"] = f->bias;
      j["tied"] = f->tied;
      j["lr"] = f->lr;
      j["min_lr"] = f->min_lr;
      j["decay_lr"] = f->decay_lr;
      j["max_iters"] = f->max_iters;
      j["warmup_iters"] = f->warmup_iters;
      j["lr_decay_iters"] = f->lr_decay_iters;
      j["weight_decay"] = f->weight_decay;
      j["beta1"] = f->beta1;
      j["beta2"] = f->beta2;
      j["grad_clip"] = f->grad_clip;
      j["grad_accum"] = f->grad_accum;
      j["eval_interval"] = f->eval_interval;
      j["eval_iters"] = f->eval_iters;
      j["log_interval"] = f->log_interval;
      j["seed"] = f->seed;
      j["threads"] = f->threads;
      j["matmul"] = f->matmul;
      j["rng_stream"] = f->rng_stream;
      return j;
    }();
    for (const auto& [option, key] : keys)
      if (option->count() > 0) over[key] = flags.at(key);  // given flags win
    opt.overrides = over;
    const TrainSummary s = run_training(opt);
    (void)s;
  });
}

}  // namespace scratchgpt::cli
