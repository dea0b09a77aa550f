// sample_cli_test.cpp: 'scratchgpt sample' end to end: seeded samples are reproducible and start
// with the prompt, the seed matters, and bad input (checkpoint missing, truncated or corrupted;
// unknown prompt characters; impossible options) is one "error:" line with the good files intact.
#include <gtest/gtest.h>

#include "train_cli_util.h"

using namespace scratchgpt::test;
namespace fs = std::filesystem;

namespace {

// A briefly trained tiny GPT (block size 16, so 100 tokens cross the KV-cache crop many times).
std::string checkpoint() {
  static const std::string ck = [] {
    const std::string dir = scratch_dir("sample_ckpt");
    const std::string data = prepared(dir, shakespeare(50000));
    const CliResult r = run_cli(
        "train --preset shakespeare-char-small --n-layer 1 --n-head 2 --n-embd 16 --block-size 16 "
        "--batch-size 8 --max-iters 30 --eval-interval 30 --eval-iters 2 --data-dir '" +
        data + "' --out-dir '" + dir + "/run'");
    if (r.rc != 0) ADD_FAILURE() << r.err;
    return dir + "/run/best.safetensors";
  }();
  return ck;
}

}  // namespace

TEST(SampleCli, SeededSamplesAreReproducible) {
  const std::string base = "sample --checkpoint '" + checkpoint() + "' --num-tokens 100 ";
  const CliResult a = run_cli(base + "--seed 1337 --prompt 'ROMEO:'");
  const CliResult b = run_cli(base + "--seed 1337 --prompt 'ROMEO:'");
  const CliResult c = run_cli(base + "--seed 1338 --prompt 'ROMEO:'");
  ASSERT_EQ(a.rc, 0) << a.err;
  EXPECT_EQ(a.out, b.out);
  EXPECT_NE(a.out, c.out);
  EXPECT_EQ(a.out.rfind("ROMEO:", 0), 0u);
  EXPECT_EQ(a.out.size(), 6u + 100u + 1u);  // prompt, 100 ASCII characters, final newline
  // Two samples, separated as nanoGPT's sample.py does; top-k / top-p / temperature accepted.
  const CliResult d = run_cli(base + "--num-samples 2 --top-k 5 --top-p 0.9 --temperature 0.8");
  ASSERT_EQ(d.rc, 0) << d.err;
  EXPECT_NE(d.out.find("\n---------------\n"), std::string::npos);
}

TEST(SampleCli, BadInput) {
  const std::string dir = scratch_dir("sample_errors");
  const std::string good = slurp(checkpoint());
  expect_error(run_cli("sample --checkpoint '" + dir + "/none.safetensors'"), "not found");
  spit(dir + "/trunc.safetensors", good.substr(0, good.size() / 2));
  expect_error(run_cli("sample --checkpoint '" + dir + "/trunc.safetensors'"), "trunc.safetensors");
  std::string flipped = good;
  flipped[flipped.size() - 10] ^= 0x10;
  spit(dir + "/flip.safetensors", flipped);
  expect_error(run_cli("sample --checkpoint '" + dir + "/flip.safetensors'"), "flip.safetensors");
  spit(dir + "/text.safetensors", "hello");
  expect_error(run_cli("sample --checkpoint '" + dir + "/text.safetensors'"), "text.safetensors");
  const std::string base = "sample --checkpoint '" + checkpoint() + "' ";
  expect_error(run_cli(base + "--prompt 'caf\xC3\xA9 ~'"), "U+00E9");
  expect_error(run_cli(base + "--block-size 17"), "--block-size");
  expect_error(run_cli(base + "--temperature 0"), "temperature");
  expect_error(run_cli(base + "--top-p 1.5"), "top-p");
  expect_error(run_cli(base + "--prompt ''"), "prompt");
  EXPECT_EQ(slurp(checkpoint()), good);  // the good checkpoint is untouched
}
