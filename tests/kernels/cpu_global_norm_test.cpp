// cpu_global_norm_test.cpp: cpu::global_norm against ref::global_norm over arrays of many lengths
// (empty, shorter than a lane group, across piece boundaries), and bitwise the same with 1 and N
// threads.
#include <gtest/gtest.h>

#include <cmath>
#include <vector>

#include "core/thread_pool.h"
#include "cpu_test_util.h"
#include "kernels/cpu/global_norm.h"
#include "kernels/ref/global_norm.h"

using namespace scratchgpt;

TEST(CpuGlobalNorm, MatchesRefAndIsTheSameForAnyThreadCount) {
  test::KernelEnv env;
  const int64_t P = cpu::kGlobalNormPiece;
  const std::vector<int64_t> sizes = {0, 1, 7, 8, 9, P - 1, P, P + 1, 3 * P + 5, 100};
  std::vector<std::vector<float>> data;
  std::vector<const float*> x;
  for (size_t a = 0; a < sizes.size(); ++a)
    data.push_back(test::random_floats(static_cast<size_t>(sizes[a]), 40 + a, -3.0f, 3.0f));
  for (const auto& d : data) x.push_back(d.data());
  const int count = static_cast<int>(sizes.size());
  const double want = ref::global_norm<float>(count, x.data(), sizes.data());
  ASSERT_GT(want, 0);
  double first = 0;
  for (int threads : {1, 2, 3, 8}) {
    test::set_threads(threads);
    const double got = cpu::global_norm(test::ctx(), count, x.data(), sizes.data());
    EXPECT_NEAR(got, want, 1e-12 * want) << threads << " threads";
    if (threads == 1) first = got;
    EXPECT_EQ(got, first) << threads << " threads: not bitwise the same as 1 thread";
  }
  EXPECT_EQ(cpu::global_norm(test::ctx(), 0, nullptr, nullptr), 0.0);
}
