// bench_preset_test.cpp: 'bench --preset' takes its shapes from train's preset table: the GPT-2
// presets are GPT-2's (vocabulary 50257, context 1024, biases, tied, gelu) and are timed at T=64,
// B=4 by default; shrunk here with the override flags so the test stays small.
#include <gtest/gtest.h>

#include "core/cpu_features.h"
#include "train_cli_util.h"

using namespace scratchgpt::test;

TEST(BenchPreset, Gpt2ShapesComeFromTheTrainPresets) {
  for (const char* preset : {"gpt2", "gpt2-xl"}) {
    const CliResult r = run_cli(std::string("bench --preset ") + preset +
                                " --n-layer 1 --n-head 2 --n-embd 16 --steps 1 --warmup 0 --json");
    ASSERT_EQ(r.rc, 0) << r.err;
    const nlohmann::json j = nlohmann::json::parse(r.out);
    EXPECT_EQ(j["preset"], preset);
    EXPECT_EQ(j["vocab_size"], 50257);
    EXPECT_EQ(j["block_size"], 1024);
    EXPECT_EQ(j["bias"], true);
    EXPECT_EQ(j["tied"], true);
    EXPECT_EQ(j["activation"], "gelu");
    EXPECT_EQ(j["seq_len"], 64);
    EXPECT_EQ(j["batch_size"], 4);
  }
  // Unknown presets list the choices, GPT-2's among them.
  const CliResult bad = run_cli("bench --preset gpt5 --steps 1");
  EXPECT_NE(bad.rc, 0);
  EXPECT_NE(bad.err.find("gpt2-medium"), std::string::npos) << bad.err;
}

// The peaks bench measures, beside each other: the FMA loop's of each level the run may use, and
// vdpbf16ps's only where the CPU has AVX512_BF16 and the run is at the AVX-512 level.
TEST(BenchPreset, Bf16PeakOnlyWhereTheCpuHasIt) {
  const std::string flags = "bench --preset shakespeare-char-small --steps 1 --warmup 0 --json";
  CliResult r = run_cli(flags);
  ASSERT_EQ(r.rc, 0) << r.err;
  nlohmann::json j = nlohmann::json::parse(r.out);
  ASSERT_TRUE(j.contains("peak_gflops_bf16")) << r.out;
  if (scratchgpt::cpu_has_avx512_bf16())
    EXPECT_GT(j["peak_gflops_bf16"].get<double>(), 0.0);
  else
    EXPECT_EQ(j["peak_gflops_bf16"].get<double>(), 0.0);
  if (scratchgpt::detected_simd_level() >= scratchgpt::SimdLevel::kAvx2) {
    EXPECT_GT(j["peak_gflops_avx2"].get<double>(), 0.0);
    r = run_cli(flags + " --simd avx2");
    ASSERT_EQ(r.rc, 0) << r.err;
    j = nlohmann::json::parse(r.out);
    EXPECT_EQ(j["peak_gflops_bf16"].get<double>(), 0.0) << "an AVX2 run has no vdpbf16ps";
    EXPECT_EQ(j["peak_gflops_avx512"].get<double>(), 0.0);
  }
}
