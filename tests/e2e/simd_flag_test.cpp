// simd_flag_test.cpp: --simd and SCRATCHGPT_SIMD choose the kernels' code path (capped at what the
// CPU has), as bench reports it; an unknown name is a one-line error listing the choices. The
// paths' numbers agree with each other in the kernels' own tests (tests/kernels/).
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "core/cpu_features.h"
#include "train_cli_util.h"

using namespace scratchgpt;
using namespace scratchgpt::test;

namespace {
std::string level_of(const std::string& prefix, const std::string& flags) {
  const CliResult r = run_cli("bench --preset shakespeare-char-small --n-layer 1 --steps 1 "
                              "--warmup 0 --json " + flags, prefix);
  EXPECT_EQ(r.rc, 0) << r.err;
  return nlohmann::json::parse(r.out)["simd"].get<std::string>();
}
}  // namespace

TEST(SimdFlag, FlagAndEnvironmentPickThePath) {
  EXPECT_EQ(level_of("", "--simd scalar"), "scalar");
  EXPECT_EQ(level_of("SCRATCHGPT_SIMD=scalar ", ""), "scalar");
  const std::string best = simd_level_name(detected_simd_level());
  EXPECT_EQ(level_of("", ""), best);
  // Asking for more than the CPU has gives what it has.
  EXPECT_EQ(level_of("", "--simd avx512"), best);
  if (detected_simd_level() >= SimdLevel::kAvx2) {
    EXPECT_EQ(level_of("", "--simd avx2"), "avx2+fma");
    EXPECT_EQ(level_of("SCRATCHGPT_SIMD=avx2 ", ""), "avx2+fma");
  }
  expect_error(run_cli("bench --steps 1 --simd sse"), "choose avx512, avx2 or scalar");
  expect_error(run_cli("bench --steps 1", "SCRATCHGPT_SIMD=neon "), "choose avx512, avx2 or scalar");
}
