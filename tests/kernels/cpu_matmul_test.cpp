// cpu_matmul_test.cpp: cpu::matmul_forward/backward against ref:: run in double, on shapes that
// are not multiples of any block size (and ones that cross the K and N block edges), at every
// SIMD level this CPU has, plus bitwise identity between 1 and 2 threads.
#include "kernels/cpu/matmul.h"

#include <gtest/gtest.h>

#include "cpu_test_util.h"
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

const Shape kShapes[] = {{1, 1, 1},     {7, 33, 65},    {33, 7, 129},  {65, 129, 7},
                         {129, 65, 33}, {12, 1, 300},   {5, 300, 3},   {300, 260, 800},
                         {257, 770, 31}};

// Error bound for a K-term float dot product of values in [-1, 1].
double atol_for(int K) { return 1e-6 * K + 1e-6; }
constexpr double kRtol = 1e-5;

struct Outputs {
  std::vector<float> out, dinp, dweight, dbias;
};

// Runs forward and backward (grads start from nonzero values: they must accumulate).
Outputs run_cpu(const Shape& s, bool with_bias, bool with_dinp, bool with_dweight) {
  auto inp = random_floats(size_t(s.N) * s.C, 1);
  auto w = random_floats(size_t(s.OC) * s.C, 2);
  auto bias = random_floats(s.OC, 3);
  auto dout = random_floats(size_t(s.N) * s.OC, 4);
  Outputs o;
  o.out.assign(size_t(s.N) * s.OC, 123.0f);
  o.dinp = random_floats(size_t(s.N) * s.C, 5);
  o.dweight = random_floats(size_t(s.OC) * s.C, 6);
  o.dbias = random_floats(s.OC, 7);
  cpu::matmul_forward(o.out.data(), inp.data(), w.data(), with_bias ? bias.data() : nullptr, s.N,
                      s.C, s.OC);
  cpu::matmul_backward(with_dinp ? o.dinp.data() : nullptr,
                       with_dweight ? o.dweight.data() : nullptr,
                       with_bias ? o.dbias.data() : nullptr, dout.data(), inp.data(), w.data(),
                       s.N, s.C, s.OC);
  return o;
}

struct RefOutputs {
  std::vector<double> out, dinp, dweight, dbias;
};

RefOutputs run_ref(const Shape& s, bool with_bias, bool with_dinp, bool with_dweight) {
  auto inp = to_double(random_floats(size_t(s.N) * s.C, 1));
  auto w = to_double(random_floats(size_t(s.OC) * s.C, 2));
  auto bias = to_double(random_floats(s.OC, 3));
  auto dout = to_double(random_floats(size_t(s.N) * s.OC, 4));
  RefOutputs o;
  o.out.assign(size_t(s.N) * s.OC, 0.0);
  o.dinp = to_double(random_floats(size_t(s.N) * s.C, 5));
  o.dweight = to_double(random_floats(size_t(s.OC) * s.C, 6));
  o.dbias = to_double(random_floats(s.OC, 7));
  ref::matmul_forward(o.out.data(), inp.data(), w.data(), with_bias ? bias.data() : nullptr, s.N,
                      s.C, s.OC);
  ref::matmul_backward(with_dinp ? o.dinp.data() : nullptr,
                       with_dweight ? o.dweight.data() : nullptr,
                       with_bias ? o.dbias.data() : nullptr, dout.data(), inp.data(), w.data(),
                       s.N, s.C, s.OC);
  return o;
}

TEST(CpuMatmul, MatchesReferenceAtEveryLevel) {
  test::KernelEnv env;
  for (const Shape& s : kShapes)
    for (int variant = 0; variant < 3; ++variant) {
      const bool with_bias = variant != 1, with_dinp = variant != 2, with_dweight = variant != 1;
      const RefOutputs r = run_ref(s, with_bias, with_dinp, with_dweight);
      for (SimdLevel level : test::simd_levels()) {
        cpu::set_simd_level(level);
        SCOPED_TRACE(std::string(simd_level_name(level)) + " N=" + std::to_string(s.N) +
                     " C=" + std::to_string(s.C) + " OC=" + std::to_string(s.OC) +
                     " variant=" + std::to_string(variant));
        const Outputs o = run_cpu(s, with_bias, with_dinp, with_dweight);
        EXPECT_TRUE(all_close(o.out, r.out, atol_for(s.C), kRtol)) << "out";
        EXPECT_TRUE(all_close(o.dinp, r.dinp, atol_for(s.OC), kRtol)) << "dinp";
        EXPECT_TRUE(all_close(o.dweight, r.dweight, atol_for(s.N), kRtol)) << "dweight";
        EXPECT_TRUE(all_close(o.dbias, r.dbias, atol_for(s.N), kRtol)) << "dbias";
      }
    }
}

TEST(CpuMatmul, OneAndTwoThreadsAreBitwiseIdentical) {
  test::KernelEnv env;
  for (SimdLevel level : test::simd_levels()) {
    cpu::set_simd_level(level);
    for (const Shape& s : kShapes) {
      SCOPED_TRACE(std::string(simd_level_name(level)) + " N=" + std::to_string(s.N) +
                   " C=" + std::to_string(s.C) + " OC=" + std::to_string(s.OC));
      ThreadPool::set_global_threads(1);
      const Outputs one = run_cpu(s, true, true, true);
      ThreadPool::set_global_threads(2);
      const Outputs two = run_cpu(s, true, true, true);
      ThreadPool::set_global_threads(3);
      const Outputs three = run_cpu(s, true, true, true);
      EXPECT_TRUE(bitwise_equal(one.out, two.out)) << "out";
      EXPECT_TRUE(bitwise_equal(one.dinp, two.dinp)) << "dinp";
      EXPECT_TRUE(bitwise_equal(one.dweight, two.dweight)) << "dweight";
      EXPECT_TRUE(bitwise_equal(one.dbias, two.dbias)) << "dbias";
      EXPECT_TRUE(bitwise_equal(one.dweight, three.dweight)) << "dweight, 3 threads";
    }
  }
}

TEST(CpuMatmul, BiasGradientMatchesReferenceBitForBit) {
  // The column sum runs in the reference's order, so float results agree exactly.
  test::KernelEnv env;
  const int N = 77, C = 5, OC = 131;
  auto dout = random_floats(size_t(N) * OC, 11);
  auto inp = random_floats(size_t(N) * C, 12);
  auto w = random_floats(size_t(OC) * C, 13);
  std::vector<float> a = random_floats(OC, 14), b = a;
  cpu::matmul_backward(nullptr, nullptr, a.data(), dout.data(), inp.data(), w.data(), N, C, OC);
  ref::matmul_backward<float>(nullptr, nullptr, b.data(), dout.data(), inp.data(), w.data(), N,
                              C, OC);
  EXPECT_TRUE(bitwise_equal(a, b));
}

}  // namespace
}  // namespace scratchgpt
