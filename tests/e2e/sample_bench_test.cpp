// sample_bench_test.cpp: 'bench --sample' reports decoding speed beside the memory bound: the
// weights a token reads (every parameter but the position table, 4 bytes each), the read
// bandwidth it measured, the bound they give and the fraction of it reached, consistently; and
// the lm_head and the sampler timed alone.
#include <gtest/gtest.h>

#include <cmath>
#include <nlohmann/json.hpp>

#include "train_cli_util.h"

using namespace scratchgpt::test;

TEST(SampleBench, ReportsTheMemoryBound) {
  const CliResult r = run_cli("bench --preset shakespeare-char-small --sample 20 --json");
  ASSERT_EQ(r.rc, 0) << r.err;
  const nlohmann::json j = nlohmann::json::parse(r.out);
  const double params = j.at("params").get<double>();
  const double C = j.at("n_embd").get<double>(), T = j.at("block_size").get<double>();
  EXPECT_EQ(j.at("weight_bytes_per_token").get<double>(), 4.0 * (params - T * C));
  const double gbps = j.at("memory_read_gbps").get<double>();
  EXPECT_GT(gbps, 0.1);
  EXPECT_LT(gbps, 10000.0);
  const double bound = j.at("bound_ms_per_token").get<double>();
  EXPECT_NEAR(bound, j.at("weight_bytes_per_token").get<double>() / (gbps * 1e9) * 1e3,
              1e-9 * bound);
  EXPECT_NEAR(j.at("fraction_of_bound").get<double>(), bound / j.at("ms_per_token").get<double>(),
              1e-9);
  EXPECT_GT(j.at("lm_head_ms").get<double>(), 0.0);
  // The sampler timed alone is a part of a token's time.
  EXPECT_GT(j.at("sampler_ms").get<double>(), 0.0);
  EXPECT_LT(j.at("sampler_ms").get<double>(), j.at("ms_per_token").get<double>());
  // The text report says the same.
  const CliResult t = run_cli("bench --preset shakespeare-char-small --sample 20");
  ASSERT_EQ(t.rc, 0) << t.err;
  EXPECT_NE(t.out.find("memory bound"), std::string::npos) << t.out;
  EXPECT_NE(t.out.find("of the bound"), std::string::npos) << t.out;
  EXPECT_NE(t.out.find("sampler"), std::string::npos) << t.out;
}

// --prompt-tokens P: the prefill of a P-token prompt is timed apart from the generation and
// reported as tokens/s (llama-bench's pp); a prompt longer than the context is a one-line error.
TEST(SampleBench, TimesThePromptApart) {
  const CliResult r =
      run_cli("bench --preset shakespeare-char-small --sample 8 --prompt-tokens 48 --json");
  ASSERT_EQ(r.rc, 0) << r.err;
  const nlohmann::json j = nlohmann::json::parse(r.out);
  EXPECT_EQ(j.at("prefill_tokens").get<int>(), 48);
  const double s = j.at("prefill_seconds").get<double>();
  EXPECT_GT(s, 0.0);
  EXPECT_NEAR(j.at("prefill_tokens_per_s").get<double>(), 48 / s, 1e-9 * 48 / s);
  const CliResult t = run_cli("bench --preset shakespeare-char-small --sample 8 --prompt-tokens 48");
  ASSERT_EQ(t.rc, 0) << t.err;
  EXPECT_NE(t.out.find("48 tokens prefilled"), std::string::npos) << t.out;
  const CliResult bad = run_cli("bench --preset shakespeare-char-small --sample 8 --prompt-tokens 65");
  EXPECT_NE(bad.rc, 0);
  EXPECT_NE(bad.err.find("--prompt-tokens must be between 0 and the context (64)"),
            std::string::npos)
      << bad.err;
}
