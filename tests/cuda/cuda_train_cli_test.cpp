// cuda_train_cli_test.cpp: --device through the CLI. Everywhere: --device cuda without a GPU (or
// in a build without CUDA) is one error line that names the fix. With a GPU: a run trained on
// cuda resumes on the CPU (the same checkpoint format) and follows the CPU's own run of the same
// seed; eval of one checkpoint on both devices agrees; bench reports a step time.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>

#include "cuda/cuda_test_util.h"
#include "e2e/train_cli_util.h"

using namespace scratchgpt::test;

namespace {

const char* kModel =
    "--preset shakespeare-char-small --n-layer 2 --n-head 2 --n-embd 64 --block-size 32 "
    "--batch-size 8 --dropout 0 --lr 1e-3 --warmup-iters 0 --eval-interval 1000 --eval-iters 2 ";

double eval_loss(const std::string& args) {
  const CliResult r = run_cli("eval " + args);
  EXPECT_EQ(r.rc, 0) << r.err;
  double loss = NAN;
  if (std::sscanf(r.out.c_str(), "val loss %lf", &loss) != 1)
    ADD_FAILURE() << "unexpected eval output: [" << r.out << "]";
  return loss;
}

}  // namespace

TEST(CudaTrainCli, DeviceCudaWithoutAGpuIsOneErrorLine) {
  if (no_gpu_reason().empty()) GTEST_SKIP() << "this machine has a GPU";
  const std::string dir = scratch_dir("cuda_nogpu");
  const std::string data = prepared(dir, shakespeare(20000));
  expect_error(run_cli(std::string("train ") + kModel + "--max-iters 2 --device cuda --data-dir '" +
                       data + "' --out-dir '" + dir + "/run'"),
               "--device cpu");
  EXPECT_FALSE(std::filesystem::exists(dir + "/run/last.safetensors"));
  expect_error(run_cli("bench --steps 1 --warmup 0 --device cuda"), "--device cpu");
  // bf16 on cuda needs no CPU instruction set: the device is what is missing.
  const CliResult bf16 = run_cli("bench --steps 1 --warmup 0 --device cuda --dtype bf16");
  expect_error(bf16, "--device cpu");
  EXPECT_EQ(bf16.err.find("AVX512_BF16"), std::string::npos) << bf16.err;
  expect_error(run_cli("bench --steps 1 --device gpu"), "--device");
}

TEST(CudaTrainCli, ACudaRunResumesOnTheCpuAndFollowsTheCpuRun) {
  SKIP_WITHOUT_GPU();
  const std::string dir = scratch_dir("cuda_resume");
  const std::string data = prepared(dir, shakespeare(60000));
  const std::string common = std::string(kModel) + "--data-dir '" + data + "' ";
  CliResult r = run_cli("train " + common + "--max-iters 6 --out-dir '" + dir + "/cpu'");
  ASSERT_EQ(r.rc, 0) << r.err;
  r = run_cli("train " + common + "--max-iters 3 --device cuda --out-dir '" + dir + "/mixed'");
  ASSERT_EQ(r.rc, 0) << r.err;
  r = run_cli("train " + common + "--max-iters 6 --device cpu --resume --out-dir '" + dir +
              "/mixed'");
  ASSERT_EQ(r.rc, 0) << r.err;
  const auto cpu = metrics(dir + "/cpu/metrics.jsonl", "train");
  const auto mixed = metrics(dir + "/mixed/metrics.jsonl", "train");
  ASSERT_EQ(cpu.size(), 6u);
  ASSERT_EQ(mixed.size(), 6u);
  for (size_t i = 0; i < 6; ++i)  // TF32 products on the GPU: close, not equal
    EXPECT_NEAR(mixed[i]["loss"].get<double>(), cpu[i]["loss"].get<double>(), 5e-3)
        << "step " << i;

  const std::string ck = "--checkpoint '" + dir + "/mixed/last.safetensors' --data-dir '" + data +
                         "' --batches 4 --seed 1 ";
  const double on_cpu = eval_loss(ck + "--device cpu");
  const double on_gpu = eval_loss(ck + "--device cuda");
  EXPECT_NEAR(on_gpu, on_cpu, 2e-3 * on_cpu);

  r = run_cli("bench --preset gpt2 --n-layer 2 --steps 2 --warmup 1 --device cuda");
  EXPECT_EQ(r.rc, 0) << r.err;
  EXPECT_NE(r.out.find("ms"), std::string::npos) << r.out;

  // Sampling on the GPU through the KV cache, past a context crop (block size 32).
  r = run_cli("sample --checkpoint '" + dir + "/mixed/last.safetensors' --num-tokens 60 "
              "--prompt 'ROMEO:' --device cuda");
  EXPECT_EQ(r.rc, 0) << r.err;
  EXPECT_GT(r.out.size(), 60u) << r.out;
  r = run_cli("bench --sample 40 --preset shakespeare-char-small --device cuda --json");
  ASSERT_EQ(r.rc, 0) << r.err;
  const nlohmann::json j = nlohmann::json::parse(r.out);
  EXPECT_EQ(j.at("device"), "cuda");
  EXPECT_GT(j.at("tokens_per_s").get<double>(), 0);
}

// --dtype bf16 on cuda: 3 steps there, resumed in bf16 on the CPU (the AVX2 path, so any CPU:
// SCRATCHGPT_BF16_ANY_CPU=1), follow the CPU's own bf16 run; the checkpoint keeps the dtype.
TEST(CudaTrainCli, ABf16CudaRunResumesOnTheCpuInBf16) {
  SKIP_WITHOUT_GPU();
  const std::string any_cpu = "SCRATCHGPT_BF16_ANY_CPU=1 ";
  const std::string dir = scratch_dir("cuda_bf16");
  const std::string data = prepared(dir, shakespeare(60000));
  const std::string common = std::string(kModel) + "--data-dir '" + data + "' ";
  CliResult r = run_cli("train " + common + "--max-iters 6 --dtype bf16 --out-dir '" + dir +
                            "/cpu'",
                        any_cpu);
  ASSERT_EQ(r.rc, 0) << r.err;
  r = run_cli("train " + common + "--max-iters 3 --dtype bf16 --device cuda --out-dir '" + dir +
              "/mixed'");
  ASSERT_EQ(r.rc, 0) << r.err;
  EXPECT_NE(r.err.find("tensor cores"), std::string::npos) << r.err;
  r = run_cli("train " + common + "--max-iters 6 --device cpu --resume --out-dir '" + dir +
                  "/mixed'",
              any_cpu);
  ASSERT_EQ(r.rc, 0) << r.err;
  EXPECT_NE(r.err.find("bf16"), std::string::npos) << "--resume keeps the dtype: " << r.err;
  const auto cpu = metrics(dir + "/cpu/metrics.jsonl", "train");
  const auto mixed = metrics(dir + "/mixed/metrics.jsonl", "train");
  ASSERT_EQ(cpu.size(), 6u);
  ASSERT_EQ(mixed.size(), 6u);
  for (size_t i = 0; i < 6; ++i)
    EXPECT_NEAR(mixed[i]["loss"].get<double>(), cpu[i]["loss"].get<double>(), 5e-3)
        << "step " << i;
  r = run_cli("bench --preset gpt2 --n-layer 2 --steps 2 --warmup 1 --device cuda --dtype bf16 "
              "--json");
  ASSERT_EQ(r.rc, 0) << r.err;
  const nlohmann::json j = nlohmann::json::parse(r.out);
  EXPECT_EQ(j.at("dtype"), "bf16");
  EXPECT_GT(j.at("ms_per_step").get<double>(), 0);
}
