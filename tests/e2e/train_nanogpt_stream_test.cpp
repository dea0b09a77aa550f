// train_nanogpt_stream_test.cpp: `train --rng-stream nanogpt` draws nanoGPT's random numbers in
// nanoGPT's order (init, first batch, then per step: evaluation batches, dropout masks, the
// prefetched next batch), so a tiny run with dropout reproduces, step for step, the losses of
// nanoGPT's train.py loop run in PyTorch 1.13 on the same characters
// (tests/fixtures/train/nanogpt_tiny.json, from tools/nanogpt_char_reference.py --fixture).
// The "split" stream, given the same seed, does not.
#include <gtest/gtest.h>

#include <cmath>

#include "train_cli_util.h"

using namespace scratchgpt::test;

namespace {

nlohmann::json fixture() {
  return nlohmann::json::parse(slurp(std::string(SCRATCHGPT_FIXTURES) + "/train/nanogpt_tiny.json"));
}

// Trains the fixture's tiny config on its characters with the given stream; returns the out dir.
std::string run(const std::string& stream) {
  const nlohmann::json f = fixture();
  const nlohmann::json& c = f["config"];
  const std::string dir = scratch_dir("nanogpt_stream_" + stream);
  const std::string data = prepared(dir, shakespeare(f["chars"].get<size_t>()));
  auto flag = [&](const char* name, const char* key) {
    return std::string(" --") + name + " " + c[key].dump();
  };
  const CliResult r = run_cli(
      "train --preset shakespeare-char-small --activation " + f["activation"].get<std::string>() +
      " --seed " + f["seed"].dump() + flag("n-layer", "n_layer") + flag("n-head", "n_head") +
      flag("n-embd", "n_embd") + flag("block-size", "block_size") +
      flag("batch-size", "batch_size") + flag("dropout", "dropout") +
      flag("max-iters", "max_iters") + flag("lr-decay-iters", "lr_decay_iters") +
      flag("eval-iters", "eval_iters") + flag("warmup-iters", "warmup_iters") +
      flag("eval-interval", "eval_interval") + " --rng-stream " + stream +
      " --threads 1 --data-dir '" + data + "' --out-dir '" + dir + "/run'");
  EXPECT_EQ(r.rc, 0) << r.err;
  return dir + "/run";
}

}  // namespace

TEST(TrainNanoGptStream, LossesFollowNanoGptsTrainingLoop) {
  const nlohmann::json f = fixture();
  const std::string out = run("nanogpt");
  const auto steps = metrics(out + "/metrics.jsonl", "train");
  const auto evals = metrics(out + "/metrics.jsonl", "eval");
  const auto& want = f["losses"];
  ASSERT_EQ(steps.size(), want.size());
  // Same batches and masks: float32 on both sides, different summation orders, so the losses
  // agree to rounding, not bits.
  for (size_t i = 0; i < want.size(); ++i)
    EXPECT_NEAR(steps[i]["loss"].get<double>(), want[i].get<double>(), 2e-5) << "step " << i;
  ASSERT_EQ(evals.size(), f["evals"].size());
  for (size_t i = 0; i < evals.size(); ++i) {
    const auto& e = f["evals"][i];
    EXPECT_EQ(evals[i]["iter"], e["iter"]);
    EXPECT_NEAR(evals[i]["train_loss"].get<double>(), e["train_loss"].get<double>(), 2e-5);
    EXPECT_NEAR(evals[i]["val_loss"].get<double>(), e["val_loss"].get<double>(), 2e-5);
  }
}

TEST(TrainNanoGptStream, TheSplitStreamDrawsOtherBatches) {
  const nlohmann::json f = fixture();
  const auto steps = metrics(run("split") + "/metrics.jsonl", "train");
  ASSERT_EQ(steps.size(), f["losses"].size());
  double most = 0;
  for (size_t i = 0; i < steps.size(); ++i)
    most = std::max(most, std::fabs(steps[i]["loss"].get<double>() - f["losses"][i].get<double>()));
  EXPECT_GT(most, 1e-2);  // same init, other batches: the per-step losses differ visibly
}
