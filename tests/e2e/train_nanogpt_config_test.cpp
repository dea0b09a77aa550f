// train_nanogpt_config_test.cpp: 'train --config' reads nanoGPT's config files (key = value
// Python literals, comments, blank lines) and key names, and nanoGPT's --key=value overrides.
// A config written in the form of nanoGPT's config/train_shakespeare_char.py, with no --preset,
// gives exactly the config of --preset shakespeare-char (the same overrides applied to both):
// every key read, learning_rate and gradient_accumulation_steps as lr and grad_accum, the keys it
// leaves out from nanoGPT's train.py defaults. One in the form of config/train_gpt2.py (5 * 8,
// positional file as `train.py config/train_gpt2.py`) gets train.py's defaults. Keys with no
// meaning here are one "ignored" line; unknown keys are all listed in one error.
#include <gtest/gtest.h>

#include "io/checkpoint.h"
#include "train/train_config.h"
#include "train_cli_util.h"

using namespace scratchgpt::test;
namespace sg = scratchgpt;

namespace {

// The form of nanoGPT's config/train_shakespeare_char.py (written here, not copied).
const char* kShakespeareChar = R"(# a small character-level model of Tiny Shakespeare
# (comments and blank lines as nanoGPT's configs have them)

out_dir = 'out-shakespeare-char'
eval_interval = 250 # frequent: it overfits
eval_iters = 200
log_interval = 10

always_save_checkpoint = False

wandb_log = False # on from the command line
wandb_project = 'shakespeare-char'
wandb_run_name = 'mini-gpt # not a comment'

dataset = 'shakespeare_char'
gradient_accumulation_steps = 1
batch_size = 64
block_size = 256 # characters of context

# the model
n_layer = 6
n_head = 6
n_embd = 384
dropout = 0.2

learning_rate = 1e-3 # small networks take a higher rate
max_iters = 5000
lr_decay_iters = 5000
min_lr = 1e-4
beta2 = 0.99

warmup_iters = 100

# device = 'cpu'
compile = False
)";

// The form of config/train_gpt2.py.
const char* kGpt2 = R"(wandb_log = True
wandb_project = 'owt'
wandb_run_name='gpt2-124M'
batch_size = 12
block_size = 1024
gradient_accumulation_steps = 5 * 8
max_iters = 600000
lr_decay_iters = 600000
eval_interval = 1000
eval_iters = 200
log_interval = 10
weight_decay = 1e-1
)";

std::string data_dir() {
  static const std::string d = prepared(scratch_dir("nanogpt_config_data"), shakespeare(20000));
  return d;
}

// What makes the runs small: nanoGPT's override form, applied to both sides of a comparison.
const char* kSmall = "--max_iters=0 --eval_iters=1 --n_layer=1 --n_embd=48 --batch_size=2 "
                     "--block_size=32";
const nlohmann::json kSmallKeys = {{"max_iters", 0}, {"eval_iters", 1},  {"n_layer", 1},
                                   {"n_embd", 48},   {"batch_size", 2}, {"block_size", 32}};

sg::TrainConfig trained_config(const std::string& out) {
  return sg::load_checkpoint(out + "/last.safetensors").cfg;
}

}  // namespace

TEST(TrainNanoGptConfig, TrainShakespeareCharIsThePreset) {
  const std::string dir = scratch_dir("nanogpt_config_char");
  spit(dir + "/train_shakespeare_char.py", kShakespeareChar);
  const CliResult r = run_cli("train --config '" + dir + "/train_shakespeare_char.py' " + kSmall +
                              " --data-dir '" + data_dir() + "' --out-dir '" + dir + "/run'");
  ASSERT_EQ(r.rc, 0) << r.err;
  const sg::TrainConfig got = trained_config(dir + "/run");
  sg::TrainConfig want = sg::preset_config("shakespeare-char");
  want.apply_json(kSmallKeys);
  want.preset = "";
  want.gpt.vocab_size = got.gpt.vocab_size;  // from the data
  want.matmul = got.matmul;                  // auto, resolved
  EXPECT_EQ(got.to_json().dump(1), want.to_json().dump(1));
  // One line names the keys that mean nothing here.
  const size_t at = r.err.find("ignored config keys");
  ASSERT_NE(at, std::string::npos) << r.err;
  const std::string line = r.err.substr(at, r.err.find('\n', at) - at);
  for (const char* key : {"out_dir", "always_save_checkpoint", "wandb_log", "wandb_project",
                          "wandb_run_name", "dataset", "compile"})
    EXPECT_NE(line.find(key), std::string::npos) << key << " in: " << line;
  EXPECT_EQ(line.find("device"), std::string::npos) << line;  // commented out
}

TEST(TrainNanoGptConfig, TrainGpt2OverTrainPyDefaultsAndOverridePrecedence) {
  const std::string dir = scratch_dir("nanogpt_config_gpt2");
  spit(dir + "/train_gpt2.py", kGpt2);
  // nanoGPT's positional config file; our --flag wins over the --key=value word.
  const CliResult r = run_cli("train '" + dir + "/train_gpt2.py' --n_layer=1 --n_embd=16 "
                              "--n_head=2 --block_size=16 --batch_size=2 --eval_iters=1 "
                              "--max_iters=7 --max-iters 0 --learning_rate=3e-4 --device=cpu --decay_lr=False "
                              "--data-dir '" + data_dir() + "' --out-dir '" + dir + "/run'");
  ASSERT_EQ(r.rc, 0) << r.err;
  const sg::TrainConfig c = trained_config(dir + "/run");
  EXPECT_EQ(c.grad_accum, 40);  // 5 * 8
  EXPECT_EQ(c.max_iters, 0);
  EXPECT_EQ(c.lr, 3e-4);
  EXPECT_FALSE(c.decay_lr);
  EXPECT_EQ(c.lr_decay_iters, 600000);
  EXPECT_EQ(c.eval_interval, 1000);
  EXPECT_EQ(c.log_interval, 10);
  // train.py's defaults for the keys the file leaves out.
  EXPECT_FALSE(c.gpt.bias);
  EXPECT_EQ(c.min_lr, 6e-5);
  EXPECT_EQ(c.warmup_iters, 2000);
  EXPECT_FLOAT_EQ(c.beta2, 0.95f);
  EXPECT_EQ(c.gpt.dropout, 0.0f);
  EXPECT_EQ(c.seed, 1337u);
  EXPECT_EQ(c.rng_stream, sg::RngStream::kNanoGpt);
  // --device=cpu is a flag of ours too (cpu or cuda): taken, not listed as ignored.
  const size_t at = r.err.find("ignored config keys");
  ASSERT_NE(at, std::string::npos) << r.err;
  EXPECT_EQ(r.err.substr(at, r.err.find('\n', at) - at).find("device"), std::string::npos) << r.err;
}

TEST(TrainNanoGptConfig, JsonConfigsTakeNanoGptNamesToo) {
  const std::string dir = scratch_dir("nanogpt_config_json");
  spit(dir + "/c.json", R"({"learning_rate": 0.002, "gradient_accumulation_steps": 3,
                             "n_layer": 1, "n_embd": 16, "n_head": 2, "block_size": 16,
                             "batch_size": 2, "eval_iters": 1, "max_iters": 0})");
  const CliResult r = run_cli("train --config '" + dir + "/c.json' --data-dir '" + data_dir() +
                              "' --out-dir '" + dir + "/run'");
  ASSERT_EQ(r.rc, 0) << r.err;
  const sg::TrainConfig c = trained_config(dir + "/run");
  EXPECT_EQ(c.lr, 0.002);
  EXPECT_EQ(c.grad_accum, 3);
}

TEST(TrainNanoGptConfig, BadConfigsAreOneErrorLine) {
  const std::string dir = scratch_dir("nanogpt_config_bad");
  const std::string where = " --data-dir '" + data_dir() + "' --out-dir '" + dir + "/run'";
  // Every unknown key, from the file and the command line, in one error.
  spit(dir + "/unknown.py", "n_layers = 2\nlearning_rat = 1e-3\nbatch_size = 4\n");
  CliResult r = run_cli("train --config '" + dir + "/unknown.py' --foo=1" + where);
  expect_error(r, "'n_layers'");
  for (const char* key : {"'learning_rat'", "'foo'"})
    EXPECT_NE(r.err.find(key), std::string::npos) << r.err;
  spit(dir + "/noeq.py", "batch_size = 4\nn_layer 6\n");
  expect_error(run_cli("train --config '" + dir + "/noeq.py'" + where), "line 2");
  spit(dir + "/value.py", "learning_rate = one\n");
  expect_error(run_cli("train --config '" + dir + "/value.py'" + where), "learning_rate");
  spit(dir + "/type.py", "max_iters = 5000.5\n");
  expect_error(run_cli("train --config '" + dir + "/type.py'" + where), "max_iters");
  spit(dir + "/twice.py", "lr = 1e-3\nlearning_rate = 1e-3\n");
  expect_error(run_cli("train --config '" + dir + "/twice.py'" + where), "twice");
  // Text that is not UTF-8 (the fuzzer's find: a string value of invalid bytes).
  spit(dir + "/bytes.py", std::string("decay_lr = \"o\x01\xe7\"\n", 17));
  expect_error(run_cli("train --config '" + dir + "/bytes.py'" + where), "not valid UTF-8");
  // A mistyped flag of ours is not taken for a config file.
  expect_error(run_cli("train --preset shakespeare-char-small --max-iter 3" + where), "--max-iter");
  // Neither a preset nor a config.
  expect_error(run_cli("train" + where), "--config");
}
