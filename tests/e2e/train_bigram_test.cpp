// train_bigram_test.cpp: end to end through the CLI with the lecture's bigram: the loss falls from
// the random-table level (~4.7 > ln 65 = 4.17) to below 2.6 (the bigram entropy of Shakespeare is
// ~2.45, the lecture's val loss ~2.5) in a few hundred steps; same seed gives bit-identical losses.
#include <gtest/gtest.h>

#include "train_cli_util.h"

using namespace scratchgpt::test;

namespace {

std::string data_dir() {
  static const std::string d = prepared(scratch_dir("bigram_data"), shakespeare(200000));
  return d;
}

CliResult train(const std::string& out, const std::string& extra) {
  return run_cli("train --preset bigram --data-dir '" + data_dir() + "' --out-dir '" + out + "' " +
                 extra);
}

}  // namespace

TEST(TrainBigram, LossFallsBelowTheory) {
  const std::string out = scratch_dir("bigram_learn");
  const CliResult r = train(out, "--max-iters 500 --eval-interval 250 --eval-iters 50");
  ASSERT_EQ(r.rc, 0) << r.err;
  const auto evals = metrics(out + "/metrics.jsonl", "eval");
  ASSERT_EQ(evals.size(), 3u);
  EXPECT_GT(evals[0]["val_loss"].get<double>(), 4.17);  // N(0,1) table: worse than uniform
  EXPECT_LT(evals[2]["val_loss"].get<double>(), 2.6);
  EXPECT_LT(evals[2]["train_loss"].get<double>(), 2.6);
  EXPECT_EQ(metrics(out + "/metrics.jsonl", "train").size(), 500u);
  EXPECT_TRUE(std::filesystem::exists(out + "/best.safetensors"));
  EXPECT_TRUE(std::filesystem::exists(out + "/last.safetensors"));
  // The summary names the best val loss and the wall time.
  EXPECT_NE(r.err.find("best val loss"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("wall time"), std::string::npos) << r.err;
  // Not a terminal: plain progress lines every log_interval (100 for this preset) steps.
  size_t lines = 0;
  for (size_t p = r.err.find("\niter "); p != std::string::npos; p = r.err.find("\niter ", p + 1))
    ++lines;
  EXPECT_EQ(lines, 5u) << r.err;
  EXPECT_NE(r.err.find("\niter 500/500 loss "), std::string::npos) << r.err;
  EXPECT_EQ(r.err.find('\r'), std::string::npos);  // no terminal control characters
}

TEST(TrainBigram, ConfigFileThenFlags) {
  const std::string out = scratch_dir("bigram_config");
  spit(out + "/cfg.json", R"({"max_iters": 7, "eval_interval": 3, "eval_iters": 2, "lr": 0.5})");
  const CliResult r = train(out + "/run", "--config '" + out + "/cfg.json' --max-iters 5");
  ASSERT_EQ(r.rc, 0) << r.err;
  const auto steps = metrics(out + "/run/metrics.jsonl", "train");
  ASSERT_EQ(steps.size(), 5u);                   // the flag wins over the file
  EXPECT_EQ(steps[0]["lr"].get<double>(), 0.5);  // the file wins over the preset
  EXPECT_EQ(metrics(out + "/run/metrics.jsonl", "eval").size(), 3u);  // steps 0, 3 and 5
}

TEST(TrainBigram, SameSeedSameLossesBitForBit) {
  const std::string a = scratch_dir("bigram_seed_a"), b = scratch_dir("bigram_seed_b"),
                    c = scratch_dir("bigram_seed_c");
  const std::string args = "--max-iters 60 --eval-interval 30 --eval-iters 5 --seed 7";
  ASSERT_EQ(train(a, args).rc, 0);
  ASSERT_EQ(train(b, args).rc, 0);
  ASSERT_EQ(train(c, "--max-iters 60 --eval-interval 30 --eval-iters 5 --seed 8").rc, 0);
  const auto ma = metrics(a + "/metrics.jsonl", "train"),
             mb = metrics(b + "/metrics.jsonl", "train"),
             mc = metrics(c + "/metrics.jsonl", "train");
  ASSERT_EQ(ma.size(), 60u);
  ASSERT_EQ(mb.size(), 60u);
  int differ = 0;
  for (size_t i = 0; i < ma.size(); ++i) {
    EXPECT_EQ(ma[i]["loss"].get<double>(), mb[i]["loss"].get<double>()) << "iter " << i;
    differ += ma[i]["loss"].get<double>() != mc[i]["loss"].get<double>();
  }
  EXPECT_GT(differ, 50);  // another seed is another run
  EXPECT_EQ(slurp(a + "/last.safetensors"), slurp(b + "/last.safetensors"));
}
