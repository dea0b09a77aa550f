// llmc_data_slow_test.cpp: llm.c's own trainer on what 'prepare --format llmc' and 'export --format
// llmc' write. With SCRATCHGPT_LLMC_DIR naming an llm.c checkout, it compiles that checkout's
// train_gpt2.c and runs it, as its README says, in a directory holding our
// dev/data/tinyshakespeare/tiny_shakespeare_{train,val}.bin, gpt2_tokenizer.bin and a small GPT
// exported as gpt2_124M.bin: it must train, evaluate and print sampled text (not ids, which it
// prints when it cannot read the tokenizer file). Skipped without a checkout (CI has none: the
// files' contents are checked against llm.c's script in tests/data/dataset_test.cpp).
#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>

#include "train_cli_util.h"

using namespace scratchgpt::test;
namespace fs = std::filesystem;

TEST(LlmcData, LlmcsTrainGpt2RunsOnOurFiles) {
  const char* llmc = std::getenv("SCRATCHGPT_LLMC_DIR");
  if (llmc == nullptr || !fs::exists(fs::path(llmc) / "train_gpt2.c"))
    GTEST_SKIP() << "set SCRATCHGPT_LLMC_DIR to an llm.c checkout to run llm.c's train_gpt2.c";
  const std::string dir = scratch_dir("llmc_train_gpt2");
  const std::string data = dir + "/dev/data/tinyshakespeare";
  CliResult r = run_cli("prepare --tokenizer gpt2 --format llmc --out-dir '" + data + "'");
  ASSERT_EQ(r.rc, 0) << r.err;
  // llm.c's train_gpt2.c trains at B=4, T=64: a model with a context of 64 at least.
  r = run_cli("train --preset shakespeare-bpe --n-layer 2 --n-head 2 --n-embd 32 --block-size 64 "
              "--batch-size 4 --max-iters 4 --eval-interval 4 --eval-iters 1 --data-dir '" + data +
              "' --out-dir '" + dir + "/run'");
  ASSERT_EQ(r.rc, 0) << r.err;
  r = run_cli("export --format llmc --checkpoint '" + dir + "/run/last.safetensors' --out '" + dir +
              "/gpt2_124M.bin'");
  ASSERT_EQ(r.rc, 0) << r.err;
  fs::copy_file(data + "/gpt2_tokenizer.bin", dir + "/gpt2_tokenizer.bin");
  const std::string build = "cc -O2 -I'" + std::string(llmc) + "' '" + llmc +
                            "/train_gpt2.c' -lm -o '" + dir + "/train_gpt2' 2>'" + dir +
                            "/cc.log'";
  ASSERT_EQ(std::system(build.c_str()), 0) << slurp(dir + "/cc.log");
  const std::string run = "cd '" + dir + "' && ./train_gpt2 >run.log 2>&1";
  const int rc = std::system(run.c_str());
  const std::string log = slurp(dir + "/run.log");
  ASSERT_EQ(rc, 0) << log;
  EXPECT_NE(log.find("val loss"), std::string::npos) << log;
  EXPECT_NE(log.find("step 39"), std::string::npos) << log;
  EXPECT_NE(log.find("generating:\n---\n"), std::string::npos) << log;
  EXPECT_EQ(log.find("Failed to open the tokenizer"), std::string::npos) << log;
}
