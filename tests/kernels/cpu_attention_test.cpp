// cpu_attention_test.cpp: cpu::attention_forward/backward against ref:: run in double (with and
// without a dropout mask, odd T and head sizes, T past the GEMM's K block, shapes that take the
// tile products of simd/attention_impl.h instead of the GEMM), at every SIMD level,
// and bitwise identity between 1, 2 and 3 threads and with or without the score arrays (the
// model passes none); the per-ISA softmax of a whole head (short
// rows several at a time) against its row-at-a-time version, bit for bit. Every row length 1..T is
// a softmax row, so T = 37, 70, 300 cover the 8- and 16-lane tails.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>

#include "cpu_test_util.h"
#include "kernels/cpu/attention.h"
#include "kernels/cpu/simd/attention_simd.h"
#include "kernels/ref/attention.h"
#include "test_util.h"

namespace scratchgpt {
namespace {

using namespace test;  // cpu_test_util.h

struct Shape {
  int B, T, C, NH;
};
// The last four take the per-ISA tile products (T and HS whole vectors, T <= 256): T = 64 with
// HS = 32 (the small model's heads), HS = 48 (three 16-lane vectors), T = 256 (the longest), and
// T = HS = 24, whole vectors at AVX2 only.
const Shape kShapes[] = {{1, 1, 8, 2},   {2, 37, 48, 3}, {2, 70, 64, 2},   {1, 300, 40, 1},
                         {2, 64, 64, 2}, {1, 48, 96, 2}, {1, 256, 128, 2}, {1, 24, 48, 2}};

std::vector<float> dropout_mask(size_t n, uint32_t seed) {
  auto u = random_floats(n, seed, 0.0f, 1.0f);
  const float p = 0.25f;
  for (float& x : u) x = x < p ? 0.0f : 1.0f / (1.0f - p);
  return u;
}

struct Outputs {
  std::vector<float> out, preatt, att, dqkv, dpreatt;
};

Outputs run_cpu(const Shape& s, bool with_drop) {
  const size_t BT = size_t(s.B) * s.T, TT = size_t(s.B) * s.NH * s.T * s.T;
  auto qkv = random_floats(BT * 3 * s.C, 21);
  auto dout = random_floats(BT * s.C, 22);
  auto drop = dropout_mask(TT, 23);
  Outputs o;
  o.out.assign(BT * s.C, 7.0f);
  o.preatt.assign(TT, 7.0f);
  o.att.assign(TT, 7.0f);
  o.dqkv = random_floats(BT * 3 * s.C, 24);
  o.dpreatt.assign(TT, 7.0f);
  std::vector<float> datt(TT, 7.0f);
  cpu::attention_forward(test::ctx(), o.out.data(), o.preatt.data(), o.att.data(), qkv.data(),
                         with_drop ? drop.data() : nullptr, s.B, s.T, s.C, s.NH);
  cpu::attention_backward(test::ctx(), o.dqkv.data(), o.dpreatt.data(), datt.data(), dout.data(),
                          qkv.data(), o.att.data(), with_drop ? drop.data() : nullptr, s.B, s.T,
                          s.C, s.NH);
  return o;
}

struct RefOutputs {
  std::vector<double> out, preatt, att, dqkv, dpreatt;
};

RefOutputs run_ref(const Shape& s, bool with_drop) {
  const size_t BT = size_t(s.B) * s.T, TT = size_t(s.B) * s.NH * s.T * s.T;
  auto qkv = to_double(random_floats(BT * 3 * s.C, 21));
  auto dout = to_double(random_floats(BT * s.C, 22));
  auto drop = to_double(dropout_mask(TT, 23));
  RefOutputs o;
  o.out.assign(BT * s.C, 0.0);
  o.preatt.assign(TT, 0.0);
  o.att.assign(TT, 0.0);
  o.dqkv = to_double(random_floats(BT * 3 * s.C, 24));
  o.dpreatt.assign(TT, 0.0);
  std::vector<double> datt(TT);
  ref::attention_forward(o.out.data(), o.preatt.data(), o.att.data(), qkv.data(),
                         with_drop ? drop.data() : nullptr, s.B, s.T, s.C, s.NH);
  ref::attention_backward(o.dqkv.data(), o.dpreatt.data(), datt.data(), dout.data(), qkv.data(),
                          o.att.data(), with_drop ? drop.data() : nullptr, s.B, s.T, s.C, s.NH);
  return o;
}

// preatt holds -inf above the diagonal: require -inf exactly there, compare the rest.
::testing::AssertionResult preatt_close(std::vector<float> got, std::vector<double> want) {
  for (size_t i = 0; i < got.size(); ++i)
    if (std::isinf(want[i])) {
      if (!(std::isinf(got[i]) && got[i] < 0))
        return ::testing::AssertionFailure() << "[" << i << "] want -inf, got " << got[i];
      got[i] = 0.0f;
      want[i] = 0.0;
    }
  return all_close(got, want, 1e-5, 1e-5);
}

// Under a sanitizer the scalar level, several times slower than the SIMD ones there, leaves the
// two longest rows (T = 256 and 300: their tiles are the SIMD levels') to the bit-identity tests
// below at the other levels: half of those tests' time there. MatchesReferenceAtEveryLevel keeps
// every shape at every level.
bool affordable(const Shape& s, SimdLevel level) {
  return !test::kSanitized || level != SimdLevel::kScalar || s.T < 256;
}

TEST(CpuAttention, MatchesReferenceAtEveryLevel) {
  test::KernelEnv env;
  for (const Shape& s : kShapes)
    for (bool with_drop : {false, true}) {
      const RefOutputs r = run_ref(s, with_drop);
      for (SimdLevel level : test::simd_levels()) {
        test::set_level(level);
        SCOPED_TRACE(std::string(simd_level_name(level)) + " B=" + std::to_string(s.B) +
                     " T=" + std::to_string(s.T) + " C=" + std::to_string(s.C) +
                     " NH=" + std::to_string(s.NH) + (with_drop ? " dropout" : ""));
        const Outputs o = run_cpu(s, with_drop);
        const double atol = 1e-6 * s.T + 1e-5;
        EXPECT_TRUE(all_close(o.out, r.out, atol, 1e-4)) << "out";
        EXPECT_TRUE(preatt_close(o.preatt, r.preatt)) << "preatt";
        EXPECT_TRUE(all_close(o.att, r.att, 1e-6, 1e-4)) << "att";
        EXPECT_TRUE(all_close(o.dpreatt, r.dpreatt, atol, 1e-4)) << "dpreatt";
        EXPECT_TRUE(all_close(o.dqkv, r.dqkv, atol, 1e-4)) << "dqkv";
      }
    }
}

TEST(CpuAttention, OneTwoAndThreeThreadsAreBitwiseIdentical) {
  test::KernelEnv env;
  for (SimdLevel level : test::simd_levels()) {
    test::set_level(level);
    for (const Shape& s : kShapes)
      for (bool with_drop : {false, true}) {
        if (!affordable(s, level)) continue;
        SCOPED_TRACE(std::string(simd_level_name(level)) + " T=" + std::to_string(s.T));
        test::set_threads(1);
        const Outputs one = run_cpu(s, with_drop);
        for (int threads : {2, 3}) {
          test::set_threads(threads);
          const Outputs o = run_cpu(s, with_drop);
          EXPECT_TRUE(bitwise_equal(one.out, o.out)) << "out, " << threads << " threads";
          EXPECT_TRUE(bitwise_equal(one.preatt, o.preatt)) << "preatt, " << threads << " threads";
          EXPECT_TRUE(bitwise_equal(one.att, o.att)) << "att, " << threads << " threads";
          EXPECT_TRUE(bitwise_equal(one.dpreatt, o.dpreatt))
              << "dpreatt, " << threads << " threads";
          EXPECT_TRUE(bitwise_equal(one.dqkv, o.dqkv)) << "dqkv, " << threads << " threads";
        }
      }
  }
}

// The model keeps neither the scores nor their gradients (preatt, dpreatt, datt = nullptr): the
// kernels then hold them a head at a time in per-thread buffers, and out, att and dqkv must be
// the bits they are with the arrays.
TEST(CpuAttention, WithoutScoreArraysSameBits) {
  test::KernelEnv env;
  for (SimdLevel level : test::simd_levels()) {
    test::set_level(level);
    for (const Shape& s : kShapes)
      for (bool with_drop : {false, true})
        for (int threads : {1, 2}) {
          if (!affordable(s, level)) continue;
          test::set_threads(threads);
          SCOPED_TRACE(std::string(simd_level_name(level)) + " T=" + std::to_string(s.T) +
                       (with_drop ? " dropout" : "") + " threads=" + std::to_string(threads));
          const Outputs with = run_cpu(s, with_drop);
          const size_t BT = size_t(s.B) * s.T, TT = size_t(s.B) * s.NH * s.T * s.T;
          auto qkv = random_floats(BT * 3 * s.C, 21);
          auto dout = random_floats(BT * s.C, 22);
          auto drop = dropout_mask(TT, 23);
          std::vector<float> out(BT * s.C, 7.0f), att(TT, 7.0f);
          std::vector<float> dqkv = random_floats(BT * 3 * s.C, 24);
          const float* dm = with_drop ? drop.data() : nullptr;
          cpu::attention_forward(test::ctx(), out.data(), nullptr, att.data(), qkv.data(), dm, s.B,
                                 s.T, s.C, s.NH);
          cpu::attention_backward(test::ctx(), dqkv.data(), nullptr, nullptr, dout.data(),
                                  qkv.data(), att.data(), dm, s.B, s.T, s.C, s.NH);
          EXPECT_TRUE(bitwise_equal(with.out, out)) << "out";
          EXPECT_TRUE(bitwise_equal(with.att, att)) << "att";
          EXPECT_TRUE(bitwise_equal(with.dqkv, dqkv)) << "dqkv";
        }
  }
}

// Short rows (up to 8 vectors) go through a kernel that holds several rows in registers: it must
// give each row exactly the bits of the one-row kernel, for every T around the vector widths
// (and past the short limit, 128 floats at AVX-512, where whole heads go row by row). The scores
// start as random values, with NaN above the diagonal, which neither kernel may read.
TEST(CpuAttention, HeadSoftmaxMatchesRowByRowBitwise) {
  using HeadFn = void (*)(float*, float*, int, float);
  using RowFn = void (*)(float*, float*, int, int, float);
  struct Isa {
    SimdLevel level;
    HeadFn head;
    RowFn row;
  };
  const Isa isas[] = {{SimdLevel::kAvx2, cpu::detail::attention_softmax_avx2,
                       cpu::detail::attention_softmax_row_avx2},
                      {SimdLevel::kAvx512, cpu::detail::attention_softmax_avx512,
                       cpu::detail::attention_softmax_row_avx512}};
  int checked = 0;
  for (const Isa& isa : isas) {
    if (detected_simd_level() < isa.level) continue;
    for (int T = 1; T <= 140; ++T) {
      const size_t TT = size_t(T) * T;
      std::vector<float> pre = random_floats(TT, 70 + T, -8.0f, 8.0f);
      for (int t = 0; t < T; ++t)
        for (int j = t + 1; j < T; ++j) pre[size_t(t) * T + j] = std::nanf("");
      std::vector<float> pre_row = pre, w(TT, 7.0f), w_row(TT, 7.0f);
      isa.head(pre.data(), w.data(), T, 0.3f);
      for (int t = 0; t < T; ++t)
        isa.row(pre_row.data() + size_t(t) * T, w_row.data() + size_t(t) * T, t, T, 0.3f);
      EXPECT_TRUE(bitwise_equal(pre, pre_row)) << simd_level_name(isa.level) << " T=" << T;
      EXPECT_TRUE(bitwise_equal(w, w_row)) << simd_level_name(isa.level) << " T=" << T;
      ++checked;
    }
  }
  if (checked == 0) GTEST_SKIP() << "this CPU has no AVX2";
}

}  // namespace
}  // namespace scratchgpt
