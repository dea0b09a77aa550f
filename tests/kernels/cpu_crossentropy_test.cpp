// cpu_crossentropy_test.cpp: cpu::crossentropy_* against ref:: run in double, at every SIMD level
// (scalar, AVX2, AVX-512 where the CPU has them), with row lengths below, at and past the 8- and
// 16-lane widths and GPT-2's V = 50257; 1 vs 2 vs 3 threads bitwise.
#include <gtest/gtest.h>

#include "cpu_test_util.h"
#include "kernels/cpu/crossentropy.h"
#include "kernels/ref/crossentropy.h"

namespace scratchgpt {
namespace {

using namespace test;  // cpu_test_util.h

TEST(CpuCrossEntropy, CrossEntropy) {
  test::KernelEnv env;
  for (const Rows& r : kRows) {
    const size_t n = size_t(r.N) * r.C;
    auto logits = random_floats(n, 1, -8.0f, 8.0f);
    std::vector<int32_t> targets(r.N);
    for (int i = 0; i < r.N; ++i) targets[i] = (i * 31 + 5) % r.C;
    auto dlosses = random_floats(r.N, 2, 0.0f, 1.0f);
    std::vector<double> rl(r.N), rp(n), rd = to_double(random_floats(n, 3));
    const auto ld = to_double(logits), dld = to_double(dlosses);
    ref::crossentropy_forward(rl.data(), rp.data(), ld.data(), targets.data(), r.N, r.C);
    ref::crossentropy_backward(rd.data(), rp.data(), targets.data(), dld.data(), r.N, r.C);
    for (SimdLevel level : test::simd_levels()) {
      test::set_level(level);
      SCOPED_TRACE(std::string(simd_level_name(level)) + " N=" + std::to_string(r.N) +
                   " V=" + std::to_string(r.C));
      std::vector<float> l[3], p[3], d[3];
      for (int threads : kThreads) {
        test::set_threads(threads);
        const int k = threads - 1;
        l[k].assign(r.N, 7.0f);
        p[k].assign(n, 7.0f);
        d[k] = random_floats(n, 3);
        cpu::crossentropy_forward(test::ctx(), l[k].data(), p[k].data(), logits.data(),
                                  targets.data(), r.N, r.C);
        cpu::crossentropy_backward(test::ctx(), d[k].data(), p[k].data(), targets.data(),
                                   dlosses.data(), r.N, r.C);
      }
      EXPECT_TRUE(all_close(l[1], rl, 1e-5, 1e-5)) << "losses";
      // rtol 1e-4: a float sum over V = 50257 terms (the reference's own float run is off by 3e-5).
      EXPECT_TRUE(all_close(p[1], rp, 1e-8, 1e-4)) << "probs";
      EXPECT_TRUE(all_close(d[1], rd, 1e-7, 1e-5)) << "dlogits";
      for (int k : {1, 2}) {
        EXPECT_TRUE(bitwise_equal(l[0], l[k])) << "1 vs " << k + 1 << " threads";
        EXPECT_TRUE(bitwise_equal(p[0], p[k])) << "1 vs " << k + 1 << " threads";
        EXPECT_TRUE(bitwise_equal(d[0], d[k])) << "1 vs " << k + 1 << " threads";
      }
    }
  }
}

}  // namespace
}  // namespace scratchgpt
