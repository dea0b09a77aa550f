// train_config.h: TrainConfig, every hyperparameter of a training run (model shape included), the
// named presets, and config_fields(): one table row per hyperparameter (its JSON key, help and
// type) that drives the JSON form (config files, checkpoints) and train's command-line flags, so
// adding a hyperparameter touches the struct and the table only. Later sources win:
//   preset (or the checkpoint's config on --resume, or nanoGPT's train.py defaults given a config
//   and no preset)  <  --config FILE  <  nanoGPT's --key=value words  <  our --flags.
// Config files and --key=value words also take nanoGPT's key names (config_aliases) and accept
// its keys that mean nothing here (ignored_config_keys).
// Leaves out: learning-rate schedules other than nanoGPT's warmup + cosine (or constant).
#pragma once

#include <cstdint>
#include <functional>
#include <nlohmann/json.hpp>
#include <string>
#include <utility>
#include <vector>

#include "core/enum_names.h"
#include "core/exec_context.h"
#include "nn/gpt_config.h"

namespace scratchgpt {

enum class ModelKind { kGpt, kBigram };
inline constexpr std::pair<ModelKind, const char*> kModelKindNames[] = {
    {ModelKind::kGpt, "gpt"}, {ModelKind::kBigram, "bigram"}};

// Where the random numbers come from (train/batch_stream.h has the details):
//   split    one generator per purpose: init from seed, training batches from seed + 1, dropout
//            from seed + 2, each evaluation from (seed, iter) alone; changing eval_interval or
//            eval_iters leaves the training run as it was.
//   nanogpt  nanoGPT's train.py: one generator, torch.manual_seed(seed), drawn in its order (the
//            model's init; the first batch; then per step: the evaluation's batches when it is
//            due, the forward's dropout masks, the next batch, prefetched before the backward).
//            Our Rng is torch's, so init, batches and evaluation batches are nanoGPT's own for the
//            same seed.
enum class RngStream { kSplit, kNanoGpt };
inline constexpr std::pair<RngStream, const char*> kRngStreamNames[] = {
    {RngStream::kSplit, "split"}, {RngStream::kNanoGpt, "nanogpt"}};

struct TrainConfig {
  std::string preset;                  // name it started from ("" for none)
  ModelKind model = ModelKind::kGpt;
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
  // The matmul backend (core/exec_context.h). A run records the one it used (auto resolved), so
  // --resume continues on the same backend (their results differ in the last bits).
  MatmulBackend matmul = MatmulBackend::kAuto;
  // The matrix products' inputs: fp32, or bf16 on a CPU with AVX512_BF16 (core/exec_context.h).
  // Recorded in the checkpoint, so --resume keeps it unless --dtype is given; the weights and the
  // checkpoint stay fp32 either way, so a bf16 run resumes in fp32 and back.
  Dtype dtype = Dtype::kFp32;
  RngStream rng_stream = RngStream::kSplit;

  nlohmann::json to_json() const;
  // Applies the keys present in j (names as in to_json); an unknown key, a wrong type or an
  // unknown enum name is an Error naming the key and its flag.
  void apply_json(const nlohmann::json& j);
  // Every combination that cannot work is a one-line Error naming the fix.
  void validate() const;
};

// One hyperparameter: its JSON key (the flag is the key with dashes: n_layer -> --n-layer), what
// it means (the flag's help), the kind of value, and how to read it from and write it into a
// TrainConfig (set checks the JSON value's type and range, and names the key when it is wrong).
struct ConfigField {
  enum class Kind { kInt, kReal, kBool, kText };
  const char* key;
  std::string help;
  Kind kind;
  std::function<nlohmann::json(const TrainConfig&)> get;
  std::function<void(TrainConfig&, const nlohmann::json&)> set;
};
// Every hyperparameter, in the order of --help and of the JSON form.
const std::vector<ConfigField>& config_fields();
// A flag's text as the JSON value of its field ("4" -> 4, "true" -> true, "gelu" -> "gelu"); an
// Error naming the flag when the text is not of the field's kind.
nlohmann::json config_value_from_text(const ConfigField& field, const std::string& text);

// v as a whole number of type T under the config's rules: a JSON integer (no 1.7, no 1e12) in
// T's range (no 4294967297 into an int), else an Error "<what> has the wrong type: ..." or "<what>
// is out of range: ...". Config keys use it, and so do the configs import reads. T: int, int64_t
// or uint64_t.
template <typename T>
T json_whole_number(const nlohmann::json& v, const std::string& what);

// nanoGPT's names (train.py, config/*.py) for keys we spell otherwise; every other nanoGPT key
// that means something here has our name (n_layer, max_iters, min_lr, beta2, ...).
struct ConfigAlias {
  const char* nanogpt;
  const char* ours;
};
const std::vector<ConfigAlias>& config_aliases();  // learning_rate -> lr, ...
// nanoGPT's keys that have no meaning here (out_dir, dataset, device, wandb_*, ...): accepted in
// a config and reported as ignored. dtype is ignored in nanoGPT's spelling only (float32,
// bfloat16, float16: its GPU autocast); fp32 and bf16 are our --dtype.
const std::vector<std::string>& ignored_config_keys();
// A config object with our key names: aliases renamed, ignored keys dropped (appended to
// ignored), unknown keys appended to unknown (the caller lists them all in one error); a key
// given under both names is an Error naming source.
nlohmann::json canonical_config_keys(const nlohmann::json& j, std::vector<std::string>& ignored,
                                     std::vector<std::string>& unknown, const std::string& source);
// nanoGPT's train.py defaults (GPT-2 124M on OpenWebText: 12 x 768, T 1024, no biases, B 12 x 40
// accum, lr 6e-4 -> 6e-5 over 600000 steps, eval every 2000, log every step, its random stream),
// with the presets' tanh gelu: the base of a run given a config but no preset, as nanoGPT's config
// files are written over these.
TrainConfig nanogpt_defaults();

// "bigram", "shakespeare-char", "shakespeare-char-small", "shakespeare-bpe" (GPT-2's tokens),
// and GPT-2's four shapes "gpt2", "gpt2-medium", "gpt2-large", "gpt2-xl" (with nanoGPT's
// train_gpt2.py hyperparameters); an unknown name is an Error listing them.
TrainConfig preset_config(const std::string& name);
std::vector<std::string> preset_names();
// "bigram, shakespeare-char, ...": the names for messages and help.
std::string preset_list();

}  // namespace scratchgpt
