// train_bpe_test.cpp: a model on GPT-2 tokens end to end. prepare --tokenizer gpt2 splits Tiny
// Shakespeare as nanoGPT's data/shakespeare/prepare.py does (its readme: train 301,966 tokens,
// val 36,059) and writes the tokenizer beside the token files; train, sample and eval find it
// there and in the checkpoint; a tokenizer trained with 'tokenizer train' works the same way; a
// data dir whose tokenizer differs from the checkpoint's is a one-line error naming both.
#include <gtest/gtest.h>

#include <filesystem>
#include <nlohmann/json.hpp>
#include <string>

#include "data/dataset.h"
#include "data/token_file.h"
#include "train_cli_util.h"

using namespace scratchgpt::test;
namespace fs = std::filesystem;

namespace {
const std::string kTiny =
    " --n-layer 1 --n-head 2 --n-embd 16 --block-size 16 --batch-size 2 --max-iters 3 "
    "--eval-interval 3 --eval-iters 1 --threads 1 ";
}

TEST(TrainBpe, Gpt2TokensLikeNanoGptsShakespeare) {
  const std::string dir = scratch_dir("bpe_e2e");
  CliResult r = run_cli("prepare --tokenizer gpt2 --out-dir '" + dir + "/data'");
  ASSERT_EQ(r.rc, 0) << r.err;
  const nlohmann::json meta = nlohmann::json::parse(slurp(dir + "/data/meta.json"));
  EXPECT_EQ(meta["train_tokens"], 301966);  // nanoGPT's data/shakespeare/readme.md
  EXPECT_EQ(meta["val_tokens"], 36059);
  EXPECT_EQ(meta["vocab_size"], 50257);
  EXPECT_TRUE(fs::exists(dir + "/data/encoder.json") && fs::exists(dir + "/data/vocab.bpe"));
  r = run_cli("train --preset shakespeare-char-small" + kTiny + "--data-dir '" + dir +
              "/data' --out-dir '" + dir + "/run'");
  ASSERT_EQ(r.rc, 0) << r.err;
  r = run_cli("sample --checkpoint '" + dir + "/run/best.safetensors' --prompt 'ROMEO:' "
              "--num-tokens 5 --seed 3");
  ASSERT_EQ(r.rc, 0) << r.err;
  EXPECT_EQ(r.out.rfind("ROMEO:", 0), 0u) << r.out;
  r = run_cli("eval --checkpoint '" + dir + "/run/best.safetensors' --data-dir '" + dir +
              "/data' --batches 1");
  EXPECT_EQ(r.rc, 0) << r.err;
  // The same checkpoint on character data: refused, naming both tokenizers. (Preparing over
  // the BPE data needs --overwrite.)
  expect_error(run_cli("prepare --input '" + dir + "/data/meta.json' --out-dir '" + dir + "/data'"),
               "--overwrite");
  const std::string chars = prepared(dir, shakespeare(20000), " --overwrite");
  expect_error(run_cli("eval --checkpoint '" + dir + "/run/best.safetensors' --data-dir '" +
                       chars + "' --batches 1"),
               "BPE gpt2 (50257 tokens)");
}

TEST(TrainBpe, ATokenizerOfYourOwn) {
  const std::string dir = scratch_dir("bpe_own");
  spit(dir + "/input.txt", shakespeare(100000));
  CliResult r = run_cli("tokenizer train --input '" + dir + "/input.txt' --vocab-size 400 --out '" +
                        dir + "/tok'");
  ASSERT_EQ(r.rc, 0) << r.err;
  // A tokenizer already there stays unless asked (data may have been prepared with it).
  const std::string merges = slurp(dir + "/tok/vocab.bpe");
  expect_error(run_cli("tokenizer train --input '" + dir + "/input.txt' --vocab-size 300 --out '" +
                       dir + "/tok'"),
               "--overwrite");
  EXPECT_EQ(slurp(dir + "/tok/vocab.bpe"), merges);
  r = run_cli("tokenizer train --input '" + dir + "/input.txt' --vocab-size 400 --out '" + dir +
              "/tok' --overwrite");
  ASSERT_EQ(r.rc, 0) << r.err;
  EXPECT_EQ(slurp(dir + "/tok/vocab.bpe"), merges);  // the same training: the same merges
  r = run_cli("prepare --tokenizer '" + dir + "/tok' --input '" + dir + "/input.txt' --out-dir '" +
              dir + "/data'");
  ASSERT_EQ(r.rc, 0) << r.err;
  EXPECT_EQ(nlohmann::json::parse(slurp(dir + "/data/meta.json"))["vocab_size"], 400);
  r = run_cli("train --preset shakespeare-char-small" + kTiny + "--data-dir '" + dir +
              "/data' --out-dir '" + dir + "/run'");
  ASSERT_EQ(r.rc, 0) << r.err;
  r = run_cli("sample --checkpoint '" + dir + "/run/last.safetensors' --num-tokens 5");
  EXPECT_EQ(r.rc, 0) << r.err;
  // Resuming on data of another tokenizer is refused.
  const std::string chars = prepared(dir, shakespeare(20000), " --overwrite");
  expect_error(run_cli("train --resume --data-dir '" + chars + "' --out-dir '" + dir + "/run'"),
               "differs from the checkpoint's");
}

// Data prepared in nanoGPT's raw format and in llm.c's shards trains to exactly the losses of our
// own format (the same ids in the same order); nanoGPT's files need --vocab-size, and a wrong one
// is an error naming the token that does not fit. The raw directory carries no tokenizer, as
// nanoGPT's data/shakespeare does not: GPT-2's is taken for 50257 tokens, so sample still works.
TEST(TrainBpe, NanoGptAndLlmcDataTrainLikeOurs) {
  const std::string dir = scratch_dir("bpe_formats");
  spit(dir + "/input.txt", shakespeare(30000));
  for (const char* f : {"scratchgpt", "nanogpt"}) {
    const CliResult r = run_cli("prepare --tokenizer gpt2 --input '" + dir + "/input.txt' --format " +
                                f + " --out-dir '" + dir + "/" + f + "'");
    ASSERT_EQ(r.rc, 0) << r.err;
  }
  // The same ids as llm.c's shards (prepare --format llmc makes llm.c's own split instead, with
  // <|endoftext|> between sections: tests/data/dataset_test.cpp).
  const scratchgpt::Dataset ours = scratchgpt::Dataset::load(dir + "/scratchgpt");
  fs::create_directories(dir + "/llmc");
  scratchgpt::write_token_file(dir + "/llmc/train.bin", ours.train, 50257, scratchgpt::TokenFormat::kLlmc);
  scratchgpt::write_token_file(dir + "/llmc/val.bin", ours.val, 50257, scratchgpt::TokenFormat::kLlmc);
  for (const char* f : {"encoder.json", "vocab.bpe", "meta.json"}) fs::remove(dir + "/nanogpt/" + f);
  std::vector<std::vector<nlohmann::json>> losses;
  for (const std::string f : {"scratchgpt", "nanogpt", "llmc"}) {
    const CliResult r =
        run_cli("train --preset shakespeare-char-small" + kTiny + "--data-dir '" + dir + "/" + f +
                "' --out-dir '" + dir + "/run_" + f + "'" +
                (f == "nanogpt" ? " --vocab-size 50257" : ""));
    ASSERT_EQ(r.rc, 0) << f << ": " << r.err;
    losses.push_back(metrics(dir + "/run_" + f + "/metrics.jsonl", "train"));
  }
  ASSERT_EQ(losses[0].size(), 3u);
  for (size_t i = 0; i < 3; ++i) {
    EXPECT_EQ(losses[1][i]["loss"], losses[0][i]["loss"]) << "nanogpt, step " << i;
    EXPECT_EQ(losses[2][i]["loss"], losses[0][i]["loss"]) << "llmc, step " << i;
  }
  CliResult r = run_cli("sample --checkpoint '" + dir + "/run_nanogpt/last.safetensors' --prompt "
                        "'ROMEO:' --num-tokens 3");
  EXPECT_EQ(r.rc, 0) << r.err;
  expect_error(run_cli("train --preset shakespeare-char-small" + kTiny + "--data-dir '" + dir +
                       "/nanogpt' --out-dir '" + dir + "/run_x'"),
               "--vocab-size");
  expect_error(run_cli("train --preset shakespeare-char-small" + kTiny + "--data-dir '" + dir +
                       "/nanogpt' --out-dir '" + dir + "/run_y' --vocab-size 1000"),
               "is >= vocab_size 1000");
  expect_error(run_cli("train --preset shakespeare-char-small" + kTiny + "--data-dir '" + dir +
                       "/llmc' --out-dir '" + dir + "/run_z' --vocab-size 1000"),
               "drop --vocab-size");
}
