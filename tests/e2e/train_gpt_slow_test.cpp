// train_gpt_slow_test.cpp: a small GPT must use its context: after 600 steps on a 200k-character
// slice of Tiny Shakespeare its val loss is below 2.40, better than any bigram model can do
// (the bigram entropy of the text is ~2.45; the lecture's bigram reaches val 2.49).
#include <gtest/gtest.h>

#include "train_cli_util.h"

using namespace scratchgpt::test;

TEST(TrainGptSlow, BeatsTheBigramBound) {
  const std::string dir = scratch_dir("gpt_slow");
  const std::string data = prepared(dir, shakespeare(200000));
  const CliResult r = run_cli(
      "train --preset shakespeare-char-small --n-layer 2 --n-head 4 --n-embd 64 --block-size 64 "
      "--batch-size 16 --max-iters 600 --lr 3e-3 --warmup-iters 30 --lr-decay-iters 600 "
      "--eval-interval 300 --eval-iters 10 --data-dir '" +
      data + "' --out-dir '" + dir + "/run'");
  ASSERT_EQ(r.rc, 0) << r.err;
  const auto evals = metrics(dir + "/run/metrics.jsonl", "eval");
  ASSERT_EQ(evals.size(), 3u);
  EXPECT_LT(evals[2]["val_loss"].get<double>(), 2.40);
}
