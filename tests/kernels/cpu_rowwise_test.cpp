// cpu_rowwise_test.cpp: cpu:: layernorm, softmax and crossentropy against ref:: run in double,
// at every SIMD level (scalar, AVX2, AVX-512 where the CPU has them), with row lengths below, at
// and past the 8- and 16-lane widths and GPT-2's V = 50257; 1 vs 2 vs 3 threads bitwise; the
// per-ISA layernorm rows, several side by side, against the same rows one at a time, bitwise.
#include <gtest/gtest.h>

#include <limits>

#include "cpu_test_util.h"
#include "kernels/cpu/crossentropy.h"
#include "kernels/cpu/layernorm.h"
#include "kernels/cpu/simd/layernorm_simd.h"
#include "kernels/cpu/softmax.h"
#include "kernels/ref/crossentropy.h"
#include "kernels/ref/layernorm.h"
#include "kernels/ref/softmax.h"

namespace scratchgpt {
namespace {

using test::all_close;
using test::bitwise_equal;
using test::random_floats;
using test::to_double;

struct Rows {
  int N, C;
};
// C = 1, 7, 15 (all tail at 8 / 16 lanes), 16, 17, 65, 100, 333, 50257; the ones of more than
// 2 * kChunk elements (parallel.h) are split over the threads.
const Rows kRows[] = {{1, 1},  {3, 7},     {4, 15},    {3, 16},    {6, 17},
                      {5, 65}, {400, 100}, {300, 333}, {2, 50257}, {3, 50257}};
const int kThreads[] = {1, 2, 3};

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

TEST(CpuRowwise, LayerNorm) {
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
TEST(CpuRowwise, LayerNormRowsSideBySideEqualOneAtATimeBitwise) {
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

TEST(CpuRowwise, SoftmaxWithMaskedEntries) {
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

TEST(CpuRowwise, CrossEntropy) {
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
