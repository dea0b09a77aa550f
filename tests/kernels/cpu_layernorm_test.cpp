// cpu_layernorm_test.cpp: cpu::layernorm_* against ref:: run in double, at every SIMD level (scalar,
// AVX2, AVX-512 where the CPU has them), with row lengths below, at and past the 8- and 16-lane
// widths and GPT-2's V = 50257; 1 vs 2 vs 3 threads bitwise; the per-ISA layernorm rows, several
// side by side, against the same rows one at a time, bitwise.
#include <gtest/gtest.h>

#include "cpu_test_util.h"
#include "kernels/cpu/layernorm.h"
#include "kernels/cpu/simd/layernorm_simd.h"
#include "kernels/ref/layernorm.h"

namespace scratchgpt {
namespace {

using namespace test;  // cpu_test_util.h

struct LnOut {
  std::vector<float> y, mean, rstd, dx, dw, db;
};

LnOut run_ln(const Rows& r) {
  const size_t n = size_t(r.N) * r.C;
  auto x = random_floats(n, 1, -3.0f, 5.0f), w = random_floats(r.C, 2), b = random_floats(r.C, 3);
  auto dy = random_floats(n, 4);
  LnOut o{std::vector<float>(n), std::vector<float>(r.N), std::vector<float>(r.N),
          random_floats(n, 5), random_floats(r.C, 6), random_floats(r.C, 7)};
  cpu::layernorm_forward(test::ctx(), o.y.data(), o.mean.data(), o.rstd.data(), x.data(), w.data(),
                         b.data(), r.N, r.C);
  cpu::layernorm_backward(test::ctx(), o.dx.data(), o.dw.data(), o.db.data(), dy.data(), x.data(),
                          w.data(), o.mean.data(), o.rstd.data(), r.N, r.C);
  return o;
}

TEST(CpuLayerNorm, LayerNorm) {
  test::KernelEnv env;
  for (const Rows& r : kRows) {
    const size_t n = size_t(r.N) * r.C;
    auto x = to_double(random_floats(n, 1, -3.0f, 5.0f)), w = to_double(random_floats(r.C, 2));
    auto b = to_double(random_floats(r.C, 3)), dy = to_double(random_floats(n, 4));
    std::vector<double> y(n), mean(r.N), rstd(r.N), dx = to_double(random_floats(n, 5));
    std::vector<double> dw = to_double(random_floats(r.C, 6)), db = to_double(random_floats(r.C, 7));
    ref::layernorm_forward(y.data(), mean.data(), rstd.data(), x.data(), w.data(), b.data(), r.N,
                           r.C);
    ref::layernorm_backward(dx.data(), dw.data(), db.data(), dy.data(), x.data(), w.data(),
                            mean.data(), rstd.data(), r.N, r.C);
    for (SimdLevel level : test::simd_levels()) {
      test::set_level(level);
      SCOPED_TRACE(std::string(simd_level_name(level)) + " N=" + std::to_string(r.N) +
                   " C=" + std::to_string(r.C));
      std::vector<LnOut> outs;
      for (int threads : kThreads) {
        test::set_threads(threads);
        outs.push_back(run_ln(r));
      }
      const LnOut& two = outs[1];
      const double atol = 1e-5 + 1e-7 * r.C;
      EXPECT_TRUE(all_close(two.y, y, atol, 1e-4)) << "y";
      EXPECT_TRUE(all_close(two.mean, mean, atol, 1e-4)) << "mean";
      EXPECT_TRUE(all_close(two.rstd, rstd, atol, 1e-4)) << "rstd";
      EXPECT_TRUE(all_close(two.dx, dx, atol, 1e-4)) << "dx";
      EXPECT_TRUE(all_close(two.dw, dw, 1e-5 + 1e-6 * r.N, 1e-4)) << "dweight";
      EXPECT_TRUE(all_close(two.db, db, 1e-5 + 1e-6 * r.N, 1e-4)) << "dbias";
      const LnOut& one = outs[0];
      for (size_t k = 1; k < outs.size(); ++k) {
        const LnOut& o = outs[k];
        for (auto [a, c] : {std::pair{&one.y, &o.y},
                            {&one.dx, &o.dx},
                            {&one.dw, &o.dw},
                            {&one.db, &o.db},
                            {&one.mean, &o.mean},
                            {&one.rstd, &o.rstd}})
          EXPECT_TRUE(bitwise_equal(*a, *c)) << "1 vs " << kThreads[k] << " threads";
      }
    }
  }
}

// The per-ISA layernorm kernels take rows four at a time: each row must get exactly the bits it
// gets alone (the threads split rows at any point), and the parameter gradients must be summed in
// row order either way.
TEST(CpuLayerNorm, LayerNormRowsSideBySideEqualOneAtATimeBitwise) {
  using Fwd = void (*)(float*, float*, float*, const float*, const float*, const float*, int64_t,
                       int, float);
  using Bwd = void (*)(float*, float*, float*, const float*, const float*, const float*,
                       const float*, const float*, int64_t, int);
  struct Isa {
    SimdLevel level;
    Fwd fwd;
    Bwd bwd;
  };
  const Isa isas[] = {{SimdLevel::kAvx2, cpu::detail::layernorm_forward_rows_avx2,
                       cpu::detail::layernorm_backward_rows_avx2},
                      {SimdLevel::kAvx512, cpu::detail::layernorm_forward_rows_avx512,
                       cpu::detail::layernorm_backward_rows_avx512}};
  int checked = 0;
  for (const Isa& isa : isas) {
    if (detected_simd_level() < isa.level) continue;
    for (int C : {5, 16, 37, 128})
      for (int N = 1; N <= 9; ++N) {
        SCOPED_TRACE(std::string(simd_level_name(isa.level)) + " N=" + std::to_string(N) +
                     " C=" + std::to_string(C));
        const size_t n = size_t(N) * C;
        auto x = random_floats(n, 11, -3.0f, 5.0f), w = random_floats(C, 12);
        auto b = random_floats(C, 13), dy = random_floats(n, 14);
        std::vector<float> y(n), mean(N), rstd(N), y1(n), mean1(N), rstd1(N);
        isa.fwd(y.data(), mean.data(), rstd.data(), x.data(), w.data(), b.data(), N, C, 1e-5f);
        for (int i = 0; i < N; ++i)
          isa.fwd(y1.data() + i * C, mean1.data() + i, rstd1.data() + i, x.data() + i * C, w.data(),
                  b.data(), 1, C, 1e-5f);
        EXPECT_TRUE(bitwise_equal(y, y1)) << "y";
        EXPECT_TRUE(bitwise_equal(mean, mean1)) << "mean";
        EXPECT_TRUE(bitwise_equal(rstd, rstd1)) << "rstd";
        auto dx = random_floats(n, 15), dw = random_floats(C, 16), db = random_floats(C, 17);
        auto dx1 = dx, dw1 = dw, db1 = db;
        isa.bwd(dx.data(), dw.data(), db.data(), dy.data(), x.data(), w.data(), mean.data(),
                rstd.data(), N, C);
        for (int i = 0; i < N; ++i)
          isa.bwd(dx1.data() + i * C, dw1.data(), db1.data(), dy.data() + i * C, x.data() + i * C,
                  w.data(), mean.data() + i, rstd.data() + i, 1, C);
        EXPECT_TRUE(bitwise_equal(dx, dx1)) << "dx";
        EXPECT_TRUE(bitwise_equal(dw, dw1)) << "dweight";
        EXPECT_TRUE(bitwise_equal(db, db1)) << "dbias";
        ++checked;
      }
  }
  if (checked == 0) GTEST_SKIP() << "this CPU has no AVX2";
}

}  // namespace
}  // namespace scratchgpt
