// cpu_matvec_test.cpp: cpu::matvec_forward (and cpu::matmul_forward for few rows, which uses it)
// against ref::matmul_forward run in double, with and without bias, on sizes with vector tails and
// odd row counts, at every SIMD level this CPU has (the scalar path included); plus bitwise
// identity between 1, 2 and 3 threads.
#include <gtest/gtest.h>

#include <string>

#include "core/check.h"
#include "cpu_test_util.h"
#include "kernels/cpu/matmul.h"
#include "kernels/cpu/matvec.h"
#include "kernels/ref/matmul.h"

namespace scratchgpt {
namespace {

using namespace test;  // cpu_test_util.h

struct Shape {
  int N, C, OC;
};

// C: below one vector, exact vector multiples (odd and even block counts), tails of every kind;
// OC: below and across row groups and the threading chunk, and large enough to be threaded.
const Shape kShapes[] = {{1, 1, 1},      {1, 7, 5},      {1, 16, 9},    {1, 32, 33},   {1, 48, 100},
                         {1, 385, 1537}, {2, 33, 65},    {3, 129, 31},  {4, 770, 257}, {5, 17, 300},
                         {8, 100, 141},  {1, 768, 2304}, {2, 3072, 97}, {1, 15, 4001}};

// Error allowance for a C-term float dot product of values in [-1, 1], as in cpu_matmul_test:
// rounding of a sum of C products grows like C * 2^-24 * (size of the partial sums) in the worst
// case and like sqrt(C) in practice; a wrong or missing term costs ~0.25, far above it.
double atol_for(int C) { return 1e-6 * C + 1e-6; }
constexpr double kRtol = 1e-5;

std::vector<float> run_cpu(const Shape& s, bool with_bias, bool via_matmul) {
  const auto inp = random_floats(size_t(s.N) * s.C, 1);  // (N, C)
  const auto w = random_floats(size_t(s.OC) * s.C, 2);   // (OC, C)
  const auto bias = random_floats(s.OC, 3);              // (OC)
  std::vector<float> out(size_t(s.N) * s.OC, 123.0f);    // (N, OC)
  const float* b = with_bias ? bias.data() : nullptr;
  if (via_matmul)
    cpu::matmul_forward(test::ctx(), out.data(), inp.data(), w.data(), b, s.N, s.C, s.OC);
  else
    cpu::matvec_forward(test::ctx(), out.data(), inp.data(), w.data(), b, s.N, s.C, s.OC);
  return out;
}

std::vector<double> run_ref(const Shape& s, bool with_bias) {
  const auto inp = to_double(random_floats(size_t(s.N) * s.C, 1));
  const auto w = to_double(random_floats(size_t(s.OC) * s.C, 2));
  const auto bias = to_double(random_floats(s.OC, 3));
  std::vector<double> out(size_t(s.N) * s.OC, 0.0);
  ref::matmul_forward(out.data(), inp.data(), w.data(), with_bias ? bias.data() : nullptr, s.N, s.C,
                      s.OC);
  return out;
}

std::string describe(SimdLevel level, const Shape& s, bool with_bias) {
  return std::string(simd_level_name(level)) + " N=" + std::to_string(s.N) +
         " C=" + std::to_string(s.C) + " OC=" + std::to_string(s.OC) +
         (with_bias ? " bias" : " no bias");
}

TEST(CpuMatvec, MatchesReferenceAtEveryLevel) {
  test::KernelEnv env;
  for (const Shape& s : kShapes)
    for (bool with_bias : {true, false}) {
      const std::vector<double> r = run_ref(s, with_bias);
      for (SimdLevel level : test::simd_levels()) {
        test::set_level(level);
        SCOPED_TRACE(describe(level, s, with_bias));
        EXPECT_TRUE(all_close(run_cpu(s, with_bias, false), r, atol_for(s.C), kRtol));
      }
    }
}

TEST(CpuMatvec, MatmulForwardOfFewRowsAgreesWithReference) {
  // cpu::matmul_forward sends N <= kMatvecMaxN here; check that the dispatch keeps it right, for
  // N on both sides of the threshold.
  test::KernelEnv env;
  for (int N = 1; N <= cpu::kMatvecMaxN + 1; ++N) {
    const Shape s{N, 67, 300};
    const std::vector<double> r = run_ref(s, true);
    for (SimdLevel level : test::simd_levels()) {
      test::set_level(level);
      SCOPED_TRACE(describe(level, s, true));
      EXPECT_TRUE(all_close(run_cpu(s, true, true), r, atol_for(s.C), kRtol));
    }
  }
}

TEST(CpuMatvec, OneTwoAndThreeThreadsAreBitwiseIdentical) {
  test::KernelEnv env;
  for (SimdLevel level : test::simd_levels()) {
    test::set_level(level);
    for (const Shape& s : kShapes) {
      SCOPED_TRACE(describe(level, s, true));
      test::set_threads(1);
      const std::vector<float> one = run_cpu(s, true, false);
      test::set_threads(2);
      const std::vector<float> two = run_cpu(s, true, false);
      test::set_threads(3);
      const std::vector<float> three = run_cpu(s, true, false);
      EXPECT_TRUE(bitwise_equal(one, two)) << "2 threads";
      EXPECT_TRUE(bitwise_equal(one, three)) << "3 threads";
    }
  }
}

TEST(CpuMatvec, RowsAreIndependentOfTheirNeighbours) {
  // A row's result must not depend on which other rows share its register group: computing the
  // rows one call at a time gives the same bits as one call for all of them.
  test::KernelEnv env;
  const int N = 3, C = 45, OC = 37;
  const auto inp = random_floats(size_t(N) * C, 21);
  const auto w = random_floats(size_t(OC) * C, 22);
  const auto bias = random_floats(OC, 23);
  for (SimdLevel level : test::simd_levels()) {
    test::set_level(level);
    SCOPED_TRACE(simd_level_name(level));
    std::vector<float> all(size_t(N) * OC), single(size_t(N) * OC), row(1);
    cpu::matvec_forward(test::ctx(), all.data(), inp.data(), w.data(), bias.data(), N, C, OC);
    for (int n = 0; n < N; ++n)
      for (int o = 0; o < OC; ++o) {
        cpu::matvec_forward(test::ctx(), row.data(), inp.data() + size_t(n) * C,
                            w.data() + size_t(o) * C, bias.data() + o, 1, C, 1);
        single[size_t(n) * OC + o] = row[0];
      }
    EXPECT_TRUE(bitwise_equal(all, single));
  }
}

TEST(CpuMatvec, StridedSerialEqualsContiguous) {
  // matvec_forward_serial reads row o at weight + o * ldw: the same bits as matvec_forward on a
  // compact copy of those rows.
  test::KernelEnv env;
  const int N = 2, C = 37, OC = 300, ldw = 50;
  const auto inp = random_floats(size_t(N) * C, 31);
  const auto strided = random_floats(size_t(OC) * ldw, 32);  // (OC, ldw), first C columns used
  const auto bias = random_floats(OC, 33);
  std::vector<float> compact(size_t(OC) * C);  // (OC, C)
  for (int o = 0; o < OC; ++o)
    for (int k = 0; k < C; ++k) compact[size_t(o) * C + k] = strided[size_t(o) * ldw + k];
  for (SimdLevel level : test::simd_levels()) {
    test::set_level(level);
    SCOPED_TRACE(simd_level_name(level));
    std::vector<float> a(size_t(N) * OC), b(size_t(N) * OC);
    cpu::matvec_forward_serial(test::ctx().isa, a.data(), inp.data(), strided.data(), ldw,
                               bias.data(), N, C, OC);
    cpu::matvec_forward(test::ctx(), b.data(), inp.data(), compact.data(), bias.data(), N, C, OC);
    EXPECT_TRUE(bitwise_equal(a, b));
  }
}

TEST(CpuMatvec, RejectsTooManyRows) {
  std::vector<float> x(9 * 4), w(4 * 4), out(9 * 4);
  EXPECT_THROW(cpu::matvec_forward(test::ctx(), out.data(), x.data(), w.data(), nullptr, 9, 4, 4),
               Error);
  EXPECT_THROW(cpu::matvec_forward(test::ctx(), out.data(), x.data(), w.data(), nullptr, 0, 4, 4),
               Error);
  EXPECT_THROW(cpu::matvec_forward_serial(test::ctx().isa, out.data(), x.data(), w.data(), 3,
                                          nullptr, 1, 4, 4),
               Error);
}

}  // namespace
}  // namespace scratchgpt
