// cpu_elementwise_test.cpp: the one-line elementwise kernels cpu:: zero, copy, scale (fill.h), relu,
// residual and dropout against ref:: (in double, or bit for bit in float where the header promises
// it), at every SIMD level, on sizes that are not multiples of the vector width (tails below, at
// and past 8 and 16 lanes) and span several parallel chunks; 1 vs 2 vs 3 threads bitwise identical.
// Their SIMD siblings have files of their own: cpu_adamw_test, cpu_gelu_test, cpu_encoder_test.
#include <gtest/gtest.h>

#include <limits>

#include "cpu_test_util.h"
#include "kernels/cpu/dropout.h"
#include "kernels/cpu/fill.h"
#include "kernels/cpu/relu.h"
#include "kernels/cpu/residual.h"
#include "kernels/ref/dropout.h"
#include "kernels/ref/fill.h"
#include "kernels/ref/relu.h"
#include "kernels/ref/residual.h"

namespace scratchgpt {
namespace {

using namespace test;  // cpu_test_util.h

TEST(CpuElementwise, ZeroCopyAndScale) {
  for_levels_and_threads([](int64_t n) {
    // Buffers one element longer than n, so a chunk that ran past the end would show.
    auto src = random_floats(n + 1, 1);
    std::vector<float> z = random_floats(n + 1, 2), rz = z, c = random_floats(n + 1, 3), rc = c;
    cpu::zero(test::ctx(), z.data(), n);
    ref::zero(rz.data(), n);
    cpu::copy(test::ctx(), c.data(), src.data(), n);
    ref::copy(rc.data(), src.data(), n);
    std::vector<float> s = random_floats(n + 1, 4), rs = s;
    cpu::scale(test::ctx(), s.data(), n, 0.37f);
    ref::scale(rs.data(), n, 0.37f);
    EXPECT_TRUE(bitwise_equal(z, rz));
    EXPECT_TRUE(bitwise_equal(c, rc));
    EXPECT_TRUE(bitwise_equal(s, rs));
    std::vector<float> f = random_floats(n + 1, 5), rf = f;  // the one past n stays
    cpu::fill(test::ctx(), f.data(), n, -1.25f);
    ref::fill(rf.data(), n, -1.25f);
    EXPECT_TRUE(bitwise_equal(f, rf));
    EXPECT_EQ(f[n - 1], -1.25f);
    EXPECT_EQ(z[0], 0.0f);
    EXPECT_EQ(c[n - 1], src[n - 1]);
    return concat({&z, &c, &s, &f});
  });
}

TEST(CpuElementwise, Relu) {
  for_levels_and_threads([](int64_t n) {
    auto x = random_floats(n, 1), dy = random_floats(n, 2);
    std::vector<float> y(n), dx = random_floats(n, 3), ry(n), rdx = dx;
    cpu::relu_forward(test::ctx(), y.data(), x.data(), n);
    cpu::relu_backward(test::ctx(), dx.data(), x.data(), dy.data(), n);
    ref::relu_forward(ry.data(), x.data(), n);
    ref::relu_backward(rdx.data(), x.data(), dy.data(), n);
    EXPECT_TRUE(bitwise_equal(y, ry));
    EXPECT_TRUE(bitwise_equal(dx, rdx));
    return concat({&y, &dx});
  });
}

TEST(CpuElementwise, ResidualIncludingInPlace) {
  for_levels_and_threads([](int64_t n) {
    auto a = random_floats(n, 1), b = random_floats(n, 2);
    std::vector<float> y(n), ry(n);
    cpu::residual_forward(test::ctx(), y.data(), a.data(), b.data(), n);
    ref::residual_forward(ry.data(), a.data(), b.data(), n);
    EXPECT_TRUE(bitwise_equal(y, ry));
    std::vector<float> inplace = a;  // out aliases a, as the model's x = x + f(x)
    cpu::residual_forward(test::ctx(), inplace.data(), inplace.data(), b.data(), n);
    EXPECT_TRUE(bitwise_equal(inplace, ry));
    return concat({&y, &inplace});
  });
}

TEST(CpuElementwise, Dropout) {
  for_levels_and_threads([](int64_t n) {
    auto x = random_floats(n, 1), dy = random_floats(n, 2), u = random_floats(n, 3, 0.0f, 1.0f);
    std::vector<float> keep(n);
    for (int64_t i = 0; i < n; ++i) keep[i] = u[i] < 0.3f ? 0.0f : 1.0f;
    std::vector<float> y(n), ry(n), mask = keep, rmask = keep, dx = random_floats(n, 4),
                                    rdx = dx;
    cpu::dropout_forward(test::ctx(), y.data(), mask.data(), x.data(), n, 0.3f);
    ref::dropout_forward(ry.data(), rmask.data(), x.data(), n, 0.3f);
    cpu::dropout_backward(test::ctx(), dx.data(), dy.data(), mask.data(), n);
    ref::dropout_backward(rdx.data(), dy.data(), rmask.data(), n);
    EXPECT_TRUE(bitwise_equal(y, ry));
    EXPECT_TRUE(bitwise_equal(mask, rmask));
    EXPECT_TRUE(bitwise_equal(dx, rdx));
    // Not accumulating: dx, filled with NaN, is written without being read, with the bits of
    // accumulating into zeros.
    std::vector<float> wdx(n, std::numeric_limits<float>::quiet_NaN()), zdx(n, 0.0f);
    cpu::dropout_backward(test::ctx(), wdx.data(), dy.data(), mask.data(), n, false);
    ref::dropout_backward(zdx.data(), dy.data(), rmask.data(), n);
    EXPECT_TRUE(bitwise_equal(wdx, zdx));
    return concat({&y, &mask, &dx, &wdx});
  });
}

}  // namespace
}  // namespace scratchgpt
