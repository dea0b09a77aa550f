// train_gpt_test.cpp: a tiny GPT trained through the CLI on a 200k-character slice of Tiny
// Shakespeare. Theory: nanoGPT's init gives near-uniform logits, so the first loss is ln(V) =
// ln(62) = 4.13; a model that learns the character statistics must get below 2.7 in 300 steps
// (the bigram entropy of this text is ~2.45, reached by the lecture's bigram after thousands).
#include <gtest/gtest.h>

#include <cmath>

#include "train_cli_util.h"

using namespace scratchgpt::test;

TEST(TrainGpt, TinyModelLearns) {
  const std::string dir = scratch_dir("gpt_learn");
  const std::string data = prepared(dir, shakespeare(200000));
  const CliResult r = run_cli(
      "train --preset shakespeare-char-small --n-layer 2 --n-head 2 --n-embd 32 --block-size 32 "
      "--batch-size 16 --max-iters 300 --lr 3e-3 --warmup-iters 20 --lr-decay-iters 300 "
      "--eval-interval 150 --eval-iters 10 --data-dir '" +
      data + "' --out-dir '" + dir + "/run'");
  ASSERT_EQ(r.rc, 0) << r.err;
  const auto evals = metrics(dir + "/run/metrics.jsonl", "eval");
  ASSERT_EQ(evals.size(), 3u);
  EXPECT_NEAR(evals[0]["val_loss"].get<double>(), std::log(62.0), 0.1);
  EXPECT_LT(evals[2]["train_loss"].get<double>(), 2.7);
  EXPECT_LT(evals[2]["val_loss"].get<double>(), 2.75);
  // Loss and learning rate of each step are in the metrics, the lr following the schedule.
  const auto steps = metrics(dir + "/run/metrics.jsonl", "train");
  ASSERT_EQ(steps.size(), 300u);
  EXPECT_NEAR(steps[19]["lr"].get<double>(), 3e-3 * 20 / 21, 1e-11);  // warmup: lr (it+1)/(w+1)
  EXPECT_NEAR(steps[20]["lr"].get<double>(), 3e-3, 1e-12);
  EXPECT_GT(steps[0]["tokens_per_s"].get<double>(), 0);
}
