// train_init_from_test.cpp: 'train --init-from CK', fine-tuning. The loaded weights are the
// starting point: with a validation split of exactly one window, the run's step-0 val loss is
// bit for bit the loss of the checkpoint's model on that window (computed here in process, and
// as 'eval' prints it), and a run of 0 steps saves the checkpoint's weights unchanged with zero
// AdamW moments (a fresh optimizer). The loss falls when it trains on; --block-size below the
// checkpoint's crops the position table to its first rows (a model trained at T=32 fine-tuned at
// T=16); a flag asking for another architecture, a longer context or data of another tokenizer
// is one error line naming the field.
#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>

#include "data/dataset.h"
#include "data/token_file.h"
#include "io/checkpoint.h"
#include "run/exec.h"
#include "run/model_factory.h"
#include "train/evaluate.h"
#include "train_cli_util.h"

using namespace scratchgpt::test;
namespace sg = scratchgpt;
namespace fs = std::filesystem;

namespace {

constexpr int kT = 32;  // the pretrained model's context

struct Pretrained {
  std::string data, checkpoint;
};

// A tiny GPT trained briefly at T=32 on a slice of Tiny Shakespeare.
const Pretrained& pretrained() {
  static const Pretrained p = [] {
    const std::string dir = scratch_dir("init_from_pre");
    Pretrained r{prepared(dir, shakespeare(60000)), dir + "/run/last.safetensors"};
    const CliResult t = run_cli(
        "train --preset shakespeare-char-small --n-layer 1 --n-head 2 --n-embd 16 --block-size " +
        std::to_string(kT) + " --batch-size 8 --max-iters 150 --lr 1e-2 --warmup-iters 0 --lr-decay-iters 150 "
        "--eval-interval 150 --eval-iters 2 "
        "--data-dir '" + r.data + "' --out-dir '" + dir + "/run'");
    if (t.rc != 0) ADD_FAILURE() << t.err;
    return r;
  }();
  return p;
}

std::string init_from(const std::string& data, const std::string& out, const std::string& flags) {
  return "train --init-from '" + pretrained().checkpoint + "' --data-dir '" + data +
         "' --out-dir '" + out + "' --threads 1 " + flags;
}

}  // namespace

TEST(TrainInitFrom, TheCheckpointsWeightsAreTheStartingPoint) {
  const Pretrained& p = pretrained();
  // The same data, but a validation split of exactly T + 1 tokens: every random batch drawn from
  // it is its one window.
  const std::string dir = scratch_dir("init_from_one_window");
  const std::string data = dir + "/data";
  fs::copy(p.data, data, fs::copy_options::recursive);
  const sg::Dataset full = sg::Dataset::load(p.data);
  const std::vector<uint32_t> window(full.val.begin(), full.val.begin() + kT + 1);
  sg::write_token_file(data + "/val.bin", window, full.tokenizer.vocab_size());

  const CliResult r =
      run_cli(init_from(data, dir + "/run", "--batch-size 1 --max-iters 0 --eval-iters 2"));
  ASSERT_EQ(r.rc, 0) << r.err;
  const std::vector<nlohmann::json> evals = metrics(dir + "/run/metrics.jsonl", "eval");
  ASSERT_EQ(evals.size(), 1u);
  ASSERT_EQ(evals[0]["iter"], 0);
  const double val0 = evals[0]["val_loss"].get<double>();

  // The checkpoint's model on that window, here: the same forward, the same bits.
  const sg::Exec exec = sg::make_exec(1, sg::MatmulBackend::kAuto);
  sg::Checkpoint ck = sg::load_checkpoint(p.checkpoint);
  std::unique_ptr<sg::LanguageModel> model = sg::build_model(ck.cfg, exec.ctx);
  sg::restore_params(ck, *model, /*with_optimizer=*/false);
  const sg::FullLoss want = sg::full_loss(*model, window.data(), kT + 1, 1, kT);
  // metrics.jsonl prints the float loss with 9 digits: it reads back as the same float.
  EXPECT_EQ(static_cast<float>(val0), static_cast<float>(want.loss));
  EXPECT_LT(val0, std::log(full.tokenizer.vocab_size()) - 0.5);  // trained, not a fresh init

  // 'eval' of the checkpoint on the same window prints the same loss (to its 4 decimals).
  const CliResult e = run_cli("eval --checkpoint '" + p.checkpoint + "' --data-dir '" + data +
                              "' --batch-size 1 --threads 1");
  ASSERT_EQ(e.rc, 0) << e.err;
  double printed = NAN;
  ASSERT_EQ(std::sscanf(e.out.c_str(), "val loss %lf", &printed), 1) << e.out;
  EXPECT_NEAR(printed, val0, 5e-5);

  // No step taken: the saved weights are the checkpoint's, the optimizer fresh.
  const sg::Checkpoint out = sg::load_checkpoint(dir + "/run/last.safetensors");
  EXPECT_EQ(out.state.iter, 0);
  for (sg::Param& param : model->params()) {
    EXPECT_EQ(out.st.f32(param.name), ck.st.f32(param.name)) << param.name;
    for (float m : out.st.f32("optim.m." + param.name)) ASSERT_EQ(m, 0.0f) << param.name;
  }
}

TEST(TrainInitFrom, TheLossFallsAsItTrainsOn) {
  const Pretrained& p = pretrained();
  const std::string dir = scratch_dir("init_from_falls");
  const CliResult r = run_cli(init_from(
      p.data, dir + "/run",
      "--batch-size 8 --max-iters 40 --eval-interval 40 --eval-iters 8 --warmup-iters 0 "
      "--lr 3e-3 --lr-decay-iters 40"));
  ASSERT_EQ(r.rc, 0) << r.err;
  const std::vector<nlohmann::json> evals = metrics(dir + "/run/metrics.jsonl", "eval");
  const std::vector<nlohmann::json> steps = metrics(dir + "/run/metrics.jsonl", "train");
  ASSERT_EQ(evals.size(), 2u);
  ASSERT_EQ(steps.size(), 40u);
  EXPECT_LT(evals[1]["val_loss"].get<double>(), evals[0]["val_loss"].get<double>());
  EXPECT_LT(evals[1]["train_loss"].get<double>(), evals[0]["train_loss"].get<double>());
  // The first step already starts from the trained weights (a fresh model starts at ln V).
  const int V = sg::Dataset::load(p.data).tokenizer.vocab_size();
  EXPECT_LT(steps[0]["loss"].get<double>(), std::log(V) - 0.5);
  // The new run's hyperparameters: its lr, not the checkpoint's.
  EXPECT_DOUBLE_EQ(steps[0]["lr"].get<double>(), 3e-3);
}

TEST(TrainInitFrom, AShorterContextCropsThePositionTable) {
  const Pretrained& p = pretrained();
  const std::string dir = scratch_dir("init_from_crop");
  CliResult r = run_cli(init_from(p.data, dir + "/crop0", "--block-size 16 --max-iters 0"));
  ASSERT_EQ(r.rc, 0) << r.err;
  const sg::Checkpoint ck = sg::load_checkpoint(p.checkpoint);
  const sg::Checkpoint out = sg::load_checkpoint(dir + "/crop0/last.safetensors");
  EXPECT_EQ(out.cfg.gpt.block_size, 16);
  const int C = ck.cfg.gpt.n_embd;
  ASSERT_EQ(out.st.shape("wpe"), (std::vector<int64_t>{16, C}));
  const std::vector<float> full = ck.st.f32("wpe"), cropped = out.st.f32("wpe");
  EXPECT_EQ(cropped, std::vector<float>(full.begin(), full.begin() + 16 * C));  // rows [0, 16)
  EXPECT_EQ(out.st.f32("wte"), ck.st.f32("wte"));
  // And it trains at T=16 (its checkpoints resume at 16).
  r = run_cli(init_from(p.data, dir + "/crop", "--block-size 16 --max-iters 5 --eval-interval 5 "
                                              "--eval-iters 2"));
  ASSERT_EQ(r.rc, 0) << r.err;
  EXPECT_NE(r.err.find("T=16"), std::string::npos) << r.err;
  // A longer context than the checkpoint's has no position rows to load.
  expect_error(run_cli(init_from(p.data, dir + "/long", "--block-size 64")), "--block-size 64");
}

TEST(TrainInitFrom, BadRequestsAreOneLineNamingTheField) {
  const Pretrained& p = pretrained();
  const std::string dir = scratch_dir("init_from_bad");
  expect_error(run_cli(init_from(p.data, dir + "/a", "--n-layer 2")), "n_layer");
  expect_error(run_cli(init_from(p.data, dir + "/b", "--n-embd 32")), "n_embd");
  expect_error(run_cli(init_from(p.data, dir + "/c", "--bias true")), "bias");
  expect_error(run_cli(init_from(p.data, dir + "/d", "--activation relu")), "activation");
  // Asking for what the checkpoint has is fine.
  CliResult r = run_cli(init_from(p.data, dir + "/e", "--n-layer 1 --n-embd 16 --max-iters 0"));
  EXPECT_EQ(r.rc, 0) << r.err;
  // Data of another vocabulary: both tokenizers are named.
  const std::string other = prepared(scratch_dir("init_from_other"), std::string(2000, 'a') + "bc");
  r = run_cli(init_from(other, dir + "/f", ""));
  expect_error(r, sg::Dataset::load(p.data).tokenizer.describe());
  EXPECT_NE(r.err.find("3 characters"), std::string::npos) << r.err;
  expect_error(run_cli(init_from(p.data, dir + "/g", "--resume")), "--init-from");
  expect_error(run_cli("train --init-from '" + dir + "/missing.safetensors' --data-dir '" +
                       p.data + "' --out-dir '" + dir + "/h'"),
               "missing.safetensors");
}
