// cpu_softmax_test.cpp: cpu::softmax_* against ref:: run in double, at every SIMD level (scalar,
// AVX2, AVX-512 where the CPU has them), with row lengths below, at and past the 8- and 16-lane
// widths and GPT-2's V = 50257, masked (-inf) entries included; 1 vs 2 vs 3 threads bitwise.
#include <gtest/gtest.h>

#include <limits>

#include "cpu_test_util.h"
#include "kernels/cpu/softmax.h"
#include "kernels/ref/softmax.h"

namespace scratchgpt {
namespace {

using namespace test;  // cpu_test_util.h

TEST(CpuSoftmax, SoftmaxWithMaskedEntries) {
  test::KernelEnv env;
  const float neg_inf = -std::numeric_limits<float>::infinity();
  for (const Rows& r : kRows) {
    const size_t n = size_t(r.N) * r.C;
    auto x = random_floats(n, 1, -10.0f, 10.0f), dy = random_floats(n, 2);
    for (size_t i = 0; i < n; i += 3)
      if (i % size_t(r.C) != 0) x[i] = neg_inf;  // keep one finite entry per row
    std::vector<double> ry(n), rdx = to_double(random_floats(n, 3));
    const auto xd = to_double(x), dyd = to_double(dy);
    ref::softmax_forward(ry.data(), xd.data(), r.N, r.C);
    ref::softmax_backward(rdx.data(), dyd.data(), ry.data(), r.N, r.C);
    for (SimdLevel level : test::simd_levels()) {
      test::set_level(level);
      SCOPED_TRACE(std::string(simd_level_name(level)) + " N=" + std::to_string(r.N) +
                   " C=" + std::to_string(r.C));
      std::vector<float> y[3], dx[3];
      for (int threads : kThreads) {
        test::set_threads(threads);
        auto& yy = y[threads - 1];
        auto& dd = dx[threads - 1];
        yy.assign(n, 7.0f);
        dd = random_floats(n, 3);
        cpu::softmax_forward(test::ctx(), yy.data(), x.data(), r.N, r.C);
        cpu::softmax_backward(test::ctx(), dd.data(), dy.data(), yy.data(), r.N, r.C);
      }
      EXPECT_TRUE(all_close(y[1], ry, 1e-7, 1e-5)) << "forward";
      for (size_t i = 0; i < n; i += 3) {
        if (x[i] == neg_inf) {
          EXPECT_EQ(y[1][i], 0.0f) << "masked entry must be exactly 0";
        }
      }
      EXPECT_TRUE(all_close(dx[1], rdx, 1e-6, 1e-4)) << "backward";
      for (int k : {1, 2}) {
        EXPECT_TRUE(bitwise_equal(y[0], y[k])) << "1 vs " << k + 1 << " threads";
        EXPECT_TRUE(bitwise_equal(dx[0], dx[k])) << "1 vs " << k + 1 << " threads";
      }
    }
  }
}

}  // namespace
}  // namespace scratchgpt
