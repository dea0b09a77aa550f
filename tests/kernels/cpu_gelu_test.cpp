// cpu_gelu_test.cpp: cpu::gelu_* and cpu::gelu_exact_* against ref:: run in double, at every SIMD
// level, on sizes that are not multiples of the vector width (tails below, at and past 8 and 16
// lanes) and span several parallel chunks; 1 vs 2 vs 3 threads bitwise identical.
#include <gtest/gtest.h>

#include "cpu_test_util.h"
#include "kernels/cpu/gelu.h"
#include "kernels/ref/gelu.h"

namespace scratchgpt {
namespace {

using namespace test;  // cpu_test_util.h

TEST(CpuGelu, GeluMatchesReferenceInDouble) {
  for_levels_and_threads([](int64_t n) {
    auto x = random_floats(n, 1, -6.0f, 6.0f), dy = random_floats(n, 2);
    if (n > 10) x[3] = 0.0f, x[4] = 1e-7f, x[5] = -20.0f, x[6] = 20.0f;
    std::vector<float> y(n), dx = random_floats(n, 3);
    std::vector<double> ry(n), rdx = to_double(dx);
    cpu::gelu_forward(test::ctx(), y.data(), x.data(), n);
    cpu::gelu_backward(test::ctx(), dx.data(), x.data(), dy.data(), n);
    const auto xd = to_double(x), dyd = to_double(dy);
    ref::gelu_forward(ry.data(), xd.data(), n);
    ref::gelu_backward(rdx.data(), xd.data(), dyd.data(), n);
    EXPECT_TRUE(all_close(y, ry, 1e-6, 1e-5)) << "forward";
    // gelu' has sg (1 - sg), which cancels in float near x ~ 3: ~1e-6 absolute is inherent.
    EXPECT_TRUE(all_close(dx, rdx, 1e-5, 1e-5)) << "backward";
    // At AVX2 and AVX-512 the negative tail keeps its relative accuracy (x / (1 + e^{-2u}), not
    // 0.5 x (1 + tanh u), which loses it as tanh u nears -1; the portable path is the latter,
    // the reference's loop in float).
    for (int64_t i = 0; i < n && test::ctx().isa != SimdLevel::kScalar; ++i) {
      if (x[i] > -5.0f && x[i] < -3.0f) {
        EXPECT_NEAR(y[i] / ry[i], 1.0, 1e-5) << "x = " << x[i];
        EXPECT_NEAR(dx[i] / rdx[i], 1.0, 1e-5) << "x = " << x[i];
      }
    }
    return concat({&y, &dx});
  });
}

TEST(CpuGelu, GeluExactMatchesReferenceInDouble) {
  for_levels_and_threads([](int64_t n) {
    auto x = random_floats(n, 4, -7.0f, 7.0f), dy = random_floats(n, 5);
    // Zero, tiny, the far tails (underflow to exact 0 and x), and both sides of the sign switch.
    if (n > 10) x[3] = 0.0f, x[4] = 1e-7f, x[5] = -20.0f, x[6] = 20.0f, x[7] = -1e-7f;
    if (n > 12) x[8] = -12.0f, x[9] = -1e30f, x[10] = 1e30f;
    std::vector<float> y(n), dx = random_floats(n, 6);
    std::vector<double> ry(n), rdx = to_double(dx);
    cpu::gelu_exact_forward(test::ctx(), y.data(), x.data(), n);
    cpu::gelu_exact_backward(test::ctx(), dx.data(), x.data(), dy.data(), n);
    const auto xd = to_double(x), dyd = to_double(dy);
    ref::gelu_exact_forward(ry.data(), xd.data(), n);
    ref::gelu_exact_backward(rdx.data(), xd.data(), dyd.data(), n);
    EXPECT_TRUE(all_close(y, ry, 1e-6, 2e-6)) << "forward";
    EXPECT_TRUE(all_close(dx, rdx, 1e-6, 2e-6)) << "backward";
    // The negative tail keeps its relative accuracy (erfc, not 1 - erf).
    for (int64_t i = 0; i < n; ++i) {
      if (x[i] > -5.0f && x[i] < -3.0f) {
        EXPECT_NEAR(y[i] / ry[i], 1.0, 1e-5) << "x = " << x[i];
      }
    }
    return concat({&y, &dx});
  });
}

}  // namespace
}  // namespace scratchgpt
