// cpu_matmul_onednn_test.cpp: the oneDNN backend of cpu::matmul (--matmul onednn, built with
// -DSCRATCHGPT_DNNL=ON) against ref:: run in double, bitwise identity across 1, 2 and 3 threads
// (tiles fixed by the shape), and the errors for a backend this build lacks or a wrong name.
// Without oneDNN in the build only the error tests run.
#include <gtest/gtest.h>

#include <string>

#include "core/check.h"
#include "cpu_test_util.h"
#include "kernels/cpu/matmul.h"
#include "kernels/cpu/matmul_backend.h"
#include "kernels/ref/matmul.h"

namespace scratchgpt {
namespace {

using test::all_close;
using test::bitwise_equal;
using test::random_floats;
using test::to_double;

struct Shape {
  int N, C, OC;
};

// Odd sizes, sizes crossing the 256-row and 1024-column tiles, and a few-row forward (matvec).
const Shape kShapes[] = {{9, 33, 65},     {33, 7, 129},    {129, 65, 33},
                         {300, 260, 800}, {257, 770, 31},  {600, 40, 2100},
                         {3, 50, 70},     {768, 128, 65}};

double atol_for(int K) { return 1e-6 * K + 1e-6; }
constexpr double kRtol = 1e-5;

using BackendEnv = test::KernelEnv;  // restores the default backend (and threads) at the end

struct Outputs {
  std::vector<float> out, dinp, dweight, dbias;
};

Outputs run_cpu(const Shape& s) {
  auto inp = random_floats(size_t(s.N) * s.C, 1);
  auto w = random_floats(size_t(s.OC) * s.C, 2);
  auto bias = random_floats(s.OC, 3);
  auto dout = random_floats(size_t(s.N) * s.OC, 4);
  Outputs o;
  o.out.assign(size_t(s.N) * s.OC, 123.0f);
  o.dinp = random_floats(size_t(s.N) * s.C, 5);  // nonzero: gradients must accumulate
  o.dweight = random_floats(size_t(s.OC) * s.C, 6);
  o.dbias = random_floats(s.OC, 7);
  cpu::matmul_forward(o.out.data(), inp.data(), w.data(), bias.data(), s.N, s.C, s.OC);
  cpu::matmul_backward(o.dinp.data(), o.dweight.data(), o.dbias.data(), dout.data(), inp.data(),
                       w.data(), s.N, s.C, s.OC);
  return o;
}

TEST(CpuMatmulOneDnn, MatchesReference) {
  if (!cpu::onednn_available()) GTEST_SKIP() << "built without -DSCRATCHGPT_DNNL=ON";
  BackendEnv env;
  cpu::set_matmul_backend(cpu::MatmulBackend::kOneDnn);
  for (const Shape& s : kShapes) {
    SCOPED_TRACE("N=" + std::to_string(s.N) + " C=" + std::to_string(s.C) +
                 " OC=" + std::to_string(s.OC));
    auto inp = to_double(random_floats(size_t(s.N) * s.C, 1));
    auto w = to_double(random_floats(size_t(s.OC) * s.C, 2));
    auto bias = to_double(random_floats(s.OC, 3));
    auto dout = to_double(random_floats(size_t(s.N) * s.OC, 4));
    std::vector<double> out(size_t(s.N) * s.OC), dinp = to_double(random_floats(inp.size(), 5)),
                                                 dw = to_double(random_floats(w.size(), 6)),
                                                 db = to_double(random_floats(s.OC, 7));
    ref::matmul_forward(out.data(), inp.data(), w.data(), bias.data(), s.N, s.C, s.OC);
    ref::matmul_backward(dinp.data(), dw.data(), db.data(), dout.data(), inp.data(), w.data(), s.N,
                         s.C, s.OC);
    const Outputs o = run_cpu(s);
    EXPECT_TRUE(all_close(o.out, out, atol_for(s.C), kRtol)) << "out";
    EXPECT_TRUE(all_close(o.dinp, dinp, atol_for(s.OC), kRtol)) << "dinp";
    EXPECT_TRUE(all_close(o.dweight, dw, atol_for(s.N), kRtol)) << "dweight";
    EXPECT_TRUE(all_close(o.dbias, db, atol_for(s.N), kRtol)) << "dbias";
  }
}

TEST(CpuMatmulOneDnn, OneTwoAndThreeThreadsAreBitwiseIdentical) {
  if (!cpu::onednn_available()) GTEST_SKIP() << "built without -DSCRATCHGPT_DNNL=ON";
  BackendEnv env;
  cpu::set_matmul_backend(cpu::MatmulBackend::kOneDnn);
  for (const Shape& s : kShapes) {
    SCOPED_TRACE("N=" + std::to_string(s.N) + " C=" + std::to_string(s.C) +
                 " OC=" + std::to_string(s.OC));
    ThreadPool::set_global_threads(1);
    const Outputs one = run_cpu(s);
    for (int threads : {2, 3}) {
      ThreadPool::set_global_threads(threads);
      const Outputs many = run_cpu(s);
      EXPECT_TRUE(bitwise_equal(one.out, many.out)) << "out, threads " << threads;
      EXPECT_TRUE(bitwise_equal(one.dinp, many.dinp)) << "dinp, threads " << threads;
      EXPECT_TRUE(bitwise_equal(one.dweight, many.dweight)) << "dweight, threads " << threads;
      EXPECT_TRUE(bitwise_equal(one.dbias, many.dbias)) << "dbias, threads " << threads;
    }
  }
}

TEST(CpuMatmulOneDnn, BackendNamesAndErrors) {
  BackendEnv env;
  EXPECT_EQ(cpu::parse_matmul_backend("own"), cpu::MatmulBackend::kOwn);
  EXPECT_EQ(cpu::parse_matmul_backend("auto"), cpu::default_matmul_backend());
  EXPECT_EQ(cpu::default_matmul_backend(), cpu::onednn_available() ? cpu::MatmulBackend::kOneDnn
                                                                   : cpu::MatmulBackend::kOwn);
  EXPECT_THROW(cpu::parse_matmul_backend("blas"), Error);
  try {
    cpu::parse_matmul_backend("cuda");
    FAIL() << "no error for an unknown backend";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("choose auto, own or onednn"), std::string::npos) << e.what();
  }
  if (cpu::onednn_available()) {
    EXPECT_EQ(cpu::parse_matmul_backend("onednn"), cpu::MatmulBackend::kOneDnn);
  } else {
    EXPECT_THROW(cpu::parse_matmul_backend("onednn"), Error);
    EXPECT_THROW(cpu::set_matmul_backend(cpu::MatmulBackend::kOneDnn), Error);
    EXPECT_EQ(cpu::matmul_backend(), cpu::MatmulBackend::kOwn);  // unchanged after the error
  }
}

}  // namespace
}  // namespace scratchgpt
