// train_bf16_test.cpp: --dtype bf16 end to end. On a CPU without AVX512_BF16 train, eval and bench
// refuse it in one line naming the instruction set, before any file is written. With
// SCRATCHGPT_BF16_ANY_CPU=1 (the AVX2 path, on any CPU): a bf16 run's losses follow fp32's
// closely but not to the bit (the products' inputs are rounded), are bitwise the same on 1 and 2
// threads, the checkpoint records the dtype (--resume keeps it; --dtype fp32 switches back, the
// weights being fp32 either way), and eval in bf16 stays within 1% of fp32's loss. nanoGPT's own
// dtype key (its GPU autocast's) is ignored, not taken for ours.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <filesystem>

#include "core/cpu_features.h"
#include "kernels/kernels.h"
#include "train_cli_util.h"

using namespace scratchgpt;
using namespace scratchgpt::test;

namespace {

constexpr const char* kAnyCpu = "SCRATCHGPT_BF16_ANY_CPU=1 ";

std::string data_dir() {
  static const std::string d = prepared(scratch_dir("bf16_data"), shakespeare(60000));
  return d;
}

std::string tiny(const std::string& out, int threads = 1) {
  return "train --preset shakespeare-char-small --n-layer 2 --n-head 2 --n-embd 32 "
         "--block-size 32 --batch-size 4 --dropout 0 --max-iters 6 --eval-interval 3 "
         "--eval-iters 2 --warmup-iters 2 --lr-decay-iters 10 --threads " +
         std::to_string(threads) + " --data-dir '" + data_dir() + "' --out-dir '" + out + "'";
}

std::vector<double> losses(const std::string& out) {
  std::vector<double> v;
  for (const auto& j : metrics(out + "/metrics.jsonl", "train")) v.push_back(j["loss"]);
  return v;
}

double eval_loss(const CliResult& r) {
  char split[8] = {};
  double loss = NAN;
  std::sscanf(r.out.c_str(), "%7s loss %lf", split, &loss);
  return loss;
}

}  // namespace

TEST(TrainBf16, RefusedWithoutTheInstructionSet) {
  if (cpu_has_avx512_bf16()) GTEST_SKIP() << "this CPU has AVX512_BF16: --dtype bf16 runs here";
  const std::string out = scratch_dir("bf16_refused") + "/run";
  const CliResult r = run_cli(tiny(out) + " --dtype bf16");
  expect_error(r, "AVX512_BF16");
  EXPECT_NE(r.err.find("--dtype fp32"), std::string::npos) << r.err;
  EXPECT_FALSE(std::filesystem::exists(out)) << "nothing may be written";
  expect_error(run_cli("bench --steps 1 --warmup 0 --dtype bf16"), "AVX512_BF16");
  expect_error(run_cli("eval --checkpoint none.safetensors --data-dir '" + data_dir() +
                       "' --dtype bf16"),
               "AVX512_BF16");
}

TEST(TrainBf16, BadDtypesAreOneLineErrors) {
  expect_error(run_cli("bench --steps 1 --dtype bf8"), "choose fp32 or bf16");
  // Decoding reads its weights in the precision --weights names.
  expect_error(run_cli("bench --sample 4 --dtype bf16", kAnyCpu), "--weights bf16");
  expect_error(run_cli("eval --checkpoint none.safetensors --text none.txt --weights int8 "
                       "--dtype bf16",
                       kAnyCpu),
               "pass one");
}

TEST(TrainBf16, FollowsFp32RecordsItsDtypeAndResumesEitherWay) {
  const std::string dir = scratch_dir("bf16_runs");
  CliResult r = run_cli(tiny(dir + "/fp32"));
  ASSERT_EQ(r.rc, 0) << r.err;
  EXPECT_EQ(r.err.find("bf16 products"), std::string::npos);
  r = run_cli(tiny(dir + "/bf16") + " --dtype bf16", kAnyCpu);
  ASSERT_EQ(r.rc, 0) << r.err;
  EXPECT_NE(r.err.find("bf16 products"), std::string::npos) << r.err;
  r = run_cli(tiny(dir + "/bf16_2", 2) + " --dtype bf16", kAnyCpu);
  ASSERT_EQ(r.rc, 0) << r.err;

  const auto fp32 = losses(dir + "/fp32"), bf16 = losses(dir + "/bf16");
  ASSERT_EQ(fp32.size(), 6u);
  ASSERT_EQ(bf16.size(), 6u);
  EXPECT_EQ(bf16, losses(dir + "/bf16_2")) << "1 and 2 threads must give the same bits";
  int differ = 0;
  for (size_t i = 0; i < fp32.size(); ++i) {
    EXPECT_NEAR(bf16[i], fp32[i], 0.01 * fp32[i]) << "iter " << i;
    differ += bf16[i] != fp32[i];
  }
  EXPECT_GE(differ, 5) << "bf16's losses equal fp32's: were the products' inputs rounded?";

  // --resume keeps bf16 (recorded in the checkpoint) unless --dtype says otherwise.
  const std::string resume = " --resume --max-iters 8";
  r = run_cli("train --data-dir '" + data_dir() + "' --out-dir '" + dir + "/bf16'" + resume,
              kAnyCpu);
  ASSERT_EQ(r.rc, 0) << r.err;
  EXPECT_NE(r.err.find("bf16 products"), std::string::npos) << r.err;
  r = run_cli("train --data-dir '" + data_dir() + "' --out-dir '" + dir + "/bf16_2'" + resume +
              " --dtype fp32");
  ASSERT_EQ(r.rc, 0) << r.err;
  EXPECT_EQ(r.err.find("bf16 products"), std::string::npos) << r.err;
  // And an fp32 checkpoint resumes in bf16.
  r = run_cli("train --data-dir '" + data_dir() + "' --out-dir '" + dir + "/fp32'" + resume +
                  " --dtype bf16",
              kAnyCpu);
  ASSERT_EQ(r.rc, 0) << r.err;
  EXPECT_NE(r.err.find("bf16 products"), std::string::npos) << r.err;

  // eval of one checkpoint in both.
  const std::string ev =
      "eval --checkpoint '" + dir + "/bf16/last.safetensors' --data-dir '" + data_dir() + "'";
  const CliResult e32 = run_cli(ev), e16 = run_cli(ev + " --dtype bf16", kAnyCpu);
  ASSERT_EQ(e32.rc, 0) << e32.err;
  ASSERT_EQ(e16.rc, 0) << e16.err;
  EXPECT_NEAR(eval_loss(e16), eval_loss(e32), 0.01 * eval_loss(e32)) << e16.out << e32.out;
}

TEST(TrainBf16, NanoGptsDtypeKeyIsIgnored) {
  const std::string dir = scratch_dir("bf16_nanogpt");
  spit(dir + "/config.py", "dtype = 'bfloat16'\nmax_iters = 2\n");
  const CliResult r = run_cli(tiny(dir + "/run") + " --config '" + dir + "/config.py'");
  ASSERT_EQ(r.rc, 0) << r.err;
  const size_t ignored = r.err.find("ignored config keys");
  ASSERT_NE(ignored, std::string::npos) << r.err;
  EXPECT_NE(r.err.find("dtype\n", ignored), std::string::npos) << "dtype reported as ignored";
  EXPECT_EQ(r.err.find("bf16 products"), std::string::npos) << r.err;
  // On the command line as well, as nanoGPT's train.py takes it.
  const CliResult w = run_cli(tiny(dir + "/words") + " --dtype=bfloat16");
  ASSERT_EQ(w.rc, 0) << w.err;
  EXPECT_NE(w.err.find("dtype\n"), std::string::npos) << w.err;
  EXPECT_EQ(w.err.find("bf16 products"), std::string::npos) << w.err;
}

// --matmul onednn in bf16 runs the products on oneDNN's bf16 matmul (mixed's choice on a CPU with
// AMX tiles): the run is bitwise the same on 1 and 2 threads, its losses within fp32's rounding of
// ours (bf16 inputs either way, only the order of the sums differs), and the banner says whose
// products run.
TEST(TrainBf16, OnOneDnnsMatmulTheSameOnOneAndTwoThreadsAndNearOurs) {
  if (!kernels::onednn_available()) GTEST_SKIP() << "built without oneDNN (SCRATCHGPT_DNNL)";
  const std::string dir = scratch_dir("bf16_onednn");
  if (!kernels::onednn_has_bf16()) {  // AVX2 only: refused in one line, before any file
    expect_error(run_cli(tiny(dir + "/lib") + " --dtype bf16 --matmul onednn", kAnyCpu),
                 "--matmul own");
    EXPECT_FALSE(std::filesystem::exists(dir + "/lib")) << "nothing may be written";
    GTEST_SKIP() << "oneDNN has no bf16 matmul on this CPU (AVX2)";
  }
  CliResult r = run_cli(tiny(dir + "/own") + " --dtype bf16 --matmul own", kAnyCpu);
  ASSERT_EQ(r.rc, 0) << r.err;
  EXPECT_EQ(r.err.find("oneDNN's bf16 matmul"), std::string::npos) << r.err;
  r = run_cli(tiny(dir + "/lib") + " --dtype bf16 --matmul onednn", kAnyCpu);
  ASSERT_EQ(r.rc, 0) << r.err;
  EXPECT_NE(r.err.find("oneDNN's bf16 matmul"), std::string::npos) << r.err;
  r = run_cli(tiny(dir + "/lib_2", 2) + " --dtype bf16 --matmul onednn", kAnyCpu);
  ASSERT_EQ(r.rc, 0) << r.err;
  const auto own = losses(dir + "/own"), lib = losses(dir + "/lib");
  ASSERT_EQ(own.size(), 6u);
  ASSERT_EQ(lib.size(), 6u);
  EXPECT_EQ(lib, losses(dir + "/lib_2")) << "1 and 2 threads must give the same bits";
  for (size_t i = 0; i < own.size(); ++i)
    EXPECT_NEAR(lib[i], own[i], 1e-4 * own[i]) << "iter " << i;
}
