// test_util_test.cpp: the shared comparison helper flags what it should and prints it readably.
#include "test_util.h"

#include <gtest/gtest-spi.h>
#include <gtest/gtest.h>

#include <cmath>
#include <limits>

using namespace scratchgpt;
using scratchgpt::test::compare_close;

TEST(TestUtil, CompareCloseAcceptsWithinTolerance) {
  std::vector<float> a = {1.0f, 2.0f, -3.0f};
  std::vector<double> r = {1.0 + 1e-7, 2.0, -3.0 - 2e-6};
  auto rep = compare_close(a.data(), r.data(), 3, 1e-6, 1e-6, "ok");
  EXPECT_TRUE(rep.ok) << rep.text;
  EXPECT_EQ(rep.mismatches, 0);
}

TEST(TestUtil, CompareCloseReportsMismatchesSideBySide) {
  std::vector<float> a = {1.0f, 2.5f, 3.0f, 4.0f};
  std::vector<float> r = {1.0f, 2.0f, 3.0f, 5.0f};
  auto rep = compare_close(a.data(), r.data(), 4, 1e-5, 1e-5, "thing");
  EXPECT_FALSE(rep.ok);
  EXPECT_EQ(rep.mismatches, 2);
  EXPECT_EQ(rep.first_bad, 1);
  EXPECT_DOUBLE_EQ(rep.max_abs_diff, 1.0);
  EXPECT_NE(rep.text.find("thing"), std::string::npos);
  EXPECT_NE(rep.text.find("2.5"), std::string::npos);
  EXPECT_NE(rep.text.find("[     3]"), std::string::npos);
}

TEST(TestUtil, NanNeverMatchesButEqualInfinitiesDo) {
  const float inf = std::numeric_limits<float>::infinity();
  const float nan = std::numeric_limits<float>::quiet_NaN();
  std::vector<float> a = {-inf, nan, inf};
  std::vector<float> r = {-inf, 0.0f, -inf};
  auto rep = compare_close(a.data(), r.data(), 3, 1.0, 1.0, "inf");
  EXPECT_EQ(rep.mismatches, 2);
  EXPECT_EQ(rep.first_bad, 1);
}

TEST(TestUtil, RelativeTermScalesWithReference) {
  std::vector<double> a = {1000.5};
  std::vector<double> r = {1000.0};
  EXPECT_TRUE(compare_close(a.data(), r.data(), 1, 0.0, 1e-3, "rel").ok);
  EXPECT_FALSE(compare_close(a.data(), r.data(), 1, 0.0, 1e-4, "rel").ok);
}

TEST(TestUtil, FixturePathPointsIntoTestsFixtures) {
  std::string p = scratchgpt::test::fixture_path("kernels/x.safetensors");
  EXPECT_NE(p.find("tests/fixtures/kernels/x.safetensors"), std::string::npos);
}

TEST(TestUtil, NumericGradOfKnownFunction) {
  // L = sum(sin(x_i) * (i + 1)) has dL/dx_i = cos(x_i) * (i + 1).
  std::vector<double> x = {-1.0, 0.0, 0.3, 2.0};
  auto loss = [&] {
    double l = 0;
    for (size_t i = 0; i < x.size(); ++i) l += std::sin(x[i]) * static_cast<double>(i + 1);
    return l;
  };
  const std::vector<double> x0 = x;
  auto g = scratchgpt::test::numeric_grad(x, loss);
  EXPECT_EQ(x, x0);  // restored
  for (size_t i = 0; i < x.size(); ++i)
    EXPECT_NEAR(g[i], std::cos(x[i]) * static_cast<double>(i + 1), 1e-11);
  EXPECT_TRUE(scratchgpt::test::expect_gradients(
      {std::cos(-1.0), 2.0, 3 * std::cos(0.3), 4 * std::cos(2.0)}, g, "sin"));
}

TEST(TestUtil, ExpectGradientsFlagsAWrongGradient) {
  EXPECT_NONFATAL_FAILURE(
      scratchgpt::test::expect_gradients({1.0, 2.0, 3.0}, {1.0, 2.0 + 1e-4, 3.0}, "bad"),
      "1 of 3 gradients off");
  // Near zero the check is absolute: 1e-12 apart passes, 1e-9 apart does not.
  EXPECT_TRUE(scratchgpt::test::expect_gradients({0.0}, {1e-12}, "tiny"));
  EXPECT_NONFATAL_FAILURE(scratchgpt::test::expect_gradients({0.0}, {1e-9}, "tiny"), "tiny");
}
