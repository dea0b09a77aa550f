// train_errors_test.cpp: every bad input to prepare and train, through the CLI: a non-zero exit,
// exactly one stderr line starting with "error:" that names the problem, and nothing lost (an
// existing good checkpoint is byte-for-byte unchanged; nothing is written for rejected input).
#include <gtest/gtest.h>

#include "train_cli_util.h"

using namespace scratchgpt::test;
namespace fs = std::filesystem;

namespace {

std::string data_dir() {
  static const std::string d = prepared(scratch_dir("errors_data"), shakespeare(20000));
  return d;
}

}  // namespace

TEST(PrepareErrors, BadInputFiles) {
  const std::string dir = scratch_dir("prepare_errors");
  spit(dir + "/empty.txt", "");
  spit(dir + "/latin1.txt", "Caf\xE9 cr\xE8me");
  spit(dir + "/afile", "x");
  expect_error(run_cli("prepare --input '" + dir + "/missing.txt' --out-dir '" + dir + "/o'"),
               "not found");
  expect_error(run_cli("prepare --input '" + dir + "/empty.txt' --out-dir '" + dir + "/o'"),
               "empty");
  expect_error(run_cli("prepare --input '" + dir + "/latin1.txt' --out-dir '" + dir + "/o'"),
               "byte offset 3");
  // An out-dir under a regular file cannot be created.
  expect_error(run_cli("prepare --input '" + dir + "/latin1.txt' --out-dir '" + dir + "/afile/o'"),
               "UTF-8");
  spit(dir + "/ok.txt", "hello world\n");
  expect_error(run_cli("prepare --input '" + dir + "/ok.txt' --out-dir '" + dir + "/afile/o'"),
               "--out-dir");
  EXPECT_FALSE(fs::exists(dir + "/o"));
}

TEST(TrainErrors, ConfigsThatCannotWork) {
  const std::string out = scratch_dir("train_cfg_errors");
  const std::string base = "train --data-dir '" + data_dir() + "' --out-dir '" + out + "' ";
  expect_error(run_cli(base + "--preset shakespeare-char-small --n-head 3"), "divisible");
  expect_error(run_cli(base + "--preset shakespeare-char-small --batch-size 0"), "batch size");
  expect_error(run_cli(base + "--preset shakespeare-char-small --activation swish"), "activation");
  expect_error(run_cli(base + "--preset nano"), "unknown preset");
  expect_error(run_cli(base), "--preset");
  spit(out + "/bad.json", "{\"n_layers\": 2}");
  expect_error(run_cli(base + "--preset bigram --config '" + out + "/bad.json'"), "n_layers");
  spit(out + "/broken.json", "{\"n_layer\": ");
  expect_error(run_cli(base + "--preset bigram --config '" + out + "/broken.json'"), "JSON");
  // Nothing was written for any of them.
  EXPECT_FALSE(fs::exists(out + "/metrics.jsonl"));
}

TEST(TrainErrors, DataProblems) {
  const std::string dir = scratch_dir("train_data_errors");
  expect_error(
      run_cli("train --preset bigram --data-dir '" + dir + "/nothing' --out-dir '" + dir + "/o'"),
      "scratchgpt prepare");
  // 100 characters: val split of 10 < block_size 64 + 1.
  const std::string tiny = prepared(dir, shakespeare(100));
  expect_error(run_cli("train --preset shakespeare-char-small --data-dir '" + tiny +
                       "' --out-dir '" + dir + "/o'"),
               "--block-size");
  // A damaged token file.
  std::string bytes = slurp(tiny + "/train.bin");
  bytes[40] ^= 0x5A;
  spit(tiny + "/train.bin", bytes);
  expect_error(run_cli("train --preset bigram --data-dir '" + tiny + "' --out-dir '" + dir + "/o'"),
               "checksum");
}

TEST(TrainErrors, UnwritableOutDirFailsBeforeTraining) {
  const std::string dir = scratch_dir("train_outdir_errors");
  spit(dir + "/afile", "x");
  const CliResult r = run_cli("train --preset shakespeare-char-small --data-dir '" + data_dir() +
                              "' --out-dir '" + dir + "/afile/run'");
  expect_error(r, "--out-dir");
  EXPECT_EQ(r.err.find("step 0"), std::string::npos);  // no work was done first
}

TEST(TrainErrors, GoodCheckpointsAreNeverLost) {
  const std::string out = scratch_dir("train_keep_ckpt");
  const std::string base = "train --data-dir '" + data_dir() + "' --out-dir '" + out + "' ";
  ASSERT_EQ(run_cli(base + "--preset bigram --max-iters 20 --eval-interval 10 --eval-iters 2").rc,
            0);
  const std::string last = slurp(out + "/last.safetensors");
  const std::string best = slurp(out + "/best.safetensors");
  ASSERT_FALSE(last.empty());
  // A new run into the same directory must not silently replace them.
  expect_error(run_cli(base + "--preset bigram --max-iters 5"), "--resume");
  // A resume with a config that cannot work fails before touching them.
  expect_error(run_cli(base + "--resume --batch-size 0"), "batch size");
  // --resume where there is nothing to resume.
  expect_error(
      run_cli("train --data-dir '" + data_dir() + "' --out-dir '" + out + "/elsewhere' --resume"),
      "nothing to resume");
  EXPECT_EQ(slurp(out + "/last.safetensors"), last);
  EXPECT_EQ(slurp(out + "/best.safetensors"), best);
  // A corrupted last.safetensors is reported, not resumed from.
  std::string bad = last;
  bad[bad.size() - 3] ^= 0x01;
  spit(out + "/last.safetensors", bad);
  expect_error(run_cli(base + "--resume"), "last.safetensors");
  EXPECT_EQ(slurp(out + "/best.safetensors"), best);
}
