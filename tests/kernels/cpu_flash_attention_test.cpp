// cpu_flash_attention_test.cpp: cpu::flash_attention_forward/backward against ref::attention_*
// run in double (its out and dqkv, and the log-sum-exp of its preatt rows), for T = 1, T not a
// multiple of the tile, several tiles, HS = 32/64 and odd sizes, B and NH > 1, at every SIMD
// level; causality (later tokens leave earlier rows bit-identical); 1, 2, 3 threads bitwise equal.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <string>

#include "core/check.h"
#include "cpu_test_util.h"
#include "kernels/cpu/flash_attention.h"
#include "kernels/ref/attention.h"
#include "kernels/ref/bf16.h"

namespace scratchgpt {
namespace {

using namespace test;  // cpu_test_util.h

struct Shape {
  int B, T, C, NH, tile;
};
const Shape kShapes[] = {
    {1, 1, 32, 1, 64},     // T = 1, HS = 32
    {2, 37, 64, 2, 64},    // B, NH > 1, one partial tile, HS = 32
    {1, 130, 128, 2, 64},  // three tiles, the last partial, HS = 64
    {2, 64, 192, 3, 64},   // exactly one tile, HS = 64
    {1, 45, 40, 1, 16},    // HS = 40 (padded to whole vectors), three tiles of 16
    {1, 50, 48, 4, 32},    // HS = 12, two tiles of 32
    {3, 96, 64, 1, 32},    // HS = 64, three full tiles
    {2, 33, 42, 2, 16},    // HS = 21: odd (the bf16 pairs' last half padded), three tiles
};

std::string describe(const Shape& s) {
  return "B=" + std::to_string(s.B) + " T=" + std::to_string(s.T) + " C=" + std::to_string(s.C) +
         " NH=" + std::to_string(s.NH) + " tile=" + std::to_string(s.tile);
}

struct Outputs {
  std::vector<float> out, lse, dqkv;
};

// dtype bf16: --dtype bf16's path (the products' inputs rounded).
Outputs run_flash(const Shape& s, const std::vector<float>& qkv, Dtype dtype = Dtype::kFp32) {
  ExecContext ex = test::ctx();
  ex.dtype = dtype;
  const size_t BT = size_t(s.B) * s.T;
  auto dout = random_floats(BT * s.C, 32);
  Outputs o;
  o.out.assign(BT * s.C, 7.0f);
  o.lse.assign(size_t(s.B) * s.NH * s.T, 7.0f);
  o.dqkv = random_floats(BT * 3 * s.C, 33);  // overwritten (garbage before)
  cpu::detail::flash_attention_forward_tiled(ex, o.out.data(), o.lse.data(), qkv.data(), s.B, s.T,
                                             s.C, s.NH, s.tile);
  cpu::detail::flash_attention_backward_tiled(ex, o.dqkv.data(), dout.data(), o.out.data(),
                                              o.lse.data(), qkv.data(), s.B, s.T, s.C, s.NH,
                                              s.tile);
  return o;
}

Outputs run_flash(const Shape& s, Dtype dtype = Dtype::kFp32) {
  return run_flash(s, random_floats(size_t(s.B) * s.T * 3 * s.C, 31), dtype);
}

struct RefOutputs {
  std::vector<double> out, lse, dqkv;
};

// The stored-matrix reference in double; lse[b, h, t] = log sum_j exp(preatt[b, h, t, j]).
RefOutputs run_ref(const Shape& s) {
  const size_t BT = size_t(s.B) * s.T, TT = size_t(s.B) * s.NH * s.T * s.T;
  auto qkv = to_double(random_floats(BT * 3 * s.C, 31));
  auto dout = to_double(random_floats(BT * s.C, 32));
  RefOutputs o;
  o.out.assign(BT * s.C, 0.0);
  o.dqkv = to_double(random_floats(BT * 3 * s.C, 33));
  std::vector<double> preatt(TT), att(TT), dpreatt(TT), datt(TT);
  const double* no_dropout = nullptr;
  ref::attention_forward(o.out.data(), preatt.data(), att.data(), qkv.data(), no_dropout, s.B, s.T,
                         s.C, s.NH);
  ref::attention_backward(o.dqkv.data(), dpreatt.data(), datt.data(), dout.data(), qkv.data(),
                          att.data(), no_dropout, s.B, s.T, s.C, s.NH);
  o.lse.resize(size_t(s.B) * s.NH * s.T);
  for (size_t row = 0; row < o.lse.size(); ++row) {
    const double* p = preatt.data() + row * s.T;
    const int t = static_cast<int>(row % s.T);
    double mx = -std::numeric_limits<double>::infinity(), sum = 0.0;
    for (int j = 0; j <= t; ++j) mx = std::max(mx, p[j]);
    for (int j = 0; j <= t; ++j) sum += std::exp(p[j] - mx);
    o.lse[row] = mx + std::log(sum);
  }
  return o;
}

// Tolerances as cpu_attention_test: out and dqkv are sums of up to T products of values in
// [-1, 1] weighted by probabilities; float rounding grows at most linearly in T (and in HS for the
// scores, inside the 1e-5). lse is the log of a sum of T positive terms: relative error ~ eps.
TEST(CpuFlashAttention, MatchesStoredReferenceAtEveryLevel) {
  test::KernelEnv env;
  for (const Shape& s : kShapes) {
    const RefOutputs r = run_ref(s);
    for (SimdLevel level : test::simd_levels()) {
      test::set_level(level);
      SCOPED_TRACE(std::string(simd_level_name(level)) + " " + describe(s));
      const Outputs o = run_flash(s);
      const double atol = 1e-6 * s.T + 1e-5;
      EXPECT_TRUE(all_close(o.out, r.out, atol, 1e-4)) << "out";
      EXPECT_TRUE(all_close(o.lse, r.lse, 1e-5, 1e-5)) << "lse";
      EXPECT_TRUE(all_close(o.dqkv, r.dqkv, atol, 1e-4)) << "dqkv";
    }
  }
}

TEST(CpuFlashAttention, DefaultTileMatchesReference) {
  test::KernelEnv env;
  const Shape s{2, 150, 128, 2, cpu::kFlashTile};
  const RefOutputs r = run_ref(s);
  const size_t BT = size_t(s.B) * s.T;
  auto qkv = random_floats(BT * 3 * s.C, 31);
  auto dout = random_floats(BT * s.C, 32);
  std::vector<float> out(BT * s.C), lse(size_t(s.B) * s.NH * s.T);
  auto dqkv = random_floats(BT * 3 * s.C, 33);
  cpu::flash_attention_forward(test::ctx(), out.data(), lse.data(), qkv.data(), s.B, s.T, s.C,
                               s.NH);
  cpu::flash_attention_backward(test::ctx(), dqkv.data(), dout.data(), out.data(), lse.data(),
                                qkv.data(), s.B, s.T, s.C, s.NH);
  const double atol = 1e-6 * s.T + 1e-5;
  EXPECT_TRUE(all_close(out, r.out, atol, 1e-4)) << "out";
  EXPECT_TRUE(all_close(lse, r.lse, 1e-5, 1e-5)) << "lse";
  EXPECT_TRUE(all_close(dqkv, r.dqkv, atol, 1e-4)) << "dqkv";
}

// Changing the tokens after t must leave out and lse up to t bit-identical (no tile above the
// diagonal leaks in), at every level.
TEST(CpuFlashAttention, LaterTokensDoNotChangeEarlierRows) {
  test::KernelEnv env;
  const Shape s{1, 100, 64, 2, 32};
  const int t = 40;
  auto qkv = random_floats(size_t(s.T) * 3 * s.C, 41);
  auto qkv2 = qkv;
  for (size_t i = size_t(t + 1) * 3 * s.C; i < qkv2.size(); ++i) qkv2[i] = -2.0f * qkv2[i] + 0.5f;
  for (SimdLevel level : test::simd_levels()) {
    test::set_level(level);
    SCOPED_TRACE(simd_level_name(level));
    const Outputs a = run_flash(s, qkv), b = run_flash(s, qkv2);
    const size_t n_out = size_t(t + 1) * s.C;
    EXPECT_TRUE(bitwise_equal({a.out.begin(), a.out.begin() + n_out},
                              {b.out.begin(), b.out.begin() + n_out}));
    EXPECT_FALSE(bitwise_equal(a.out, b.out));  // the later rows did change
    for (int h = 0; h < s.NH; ++h)
      for (int i = 0; i <= t; ++i)
        EXPECT_EQ(a.lse[size_t(h) * s.T + i], b.lse[size_t(h) * s.T + i]) << h << " " << i;
  }
}

TEST(CpuFlashAttention, OneTwoThreeThreadsAreBitwiseIdentical) {
  test::KernelEnv env;
  for (SimdLevel level : test::simd_levels())
    for (Dtype dtype : {Dtype::kFp32, Dtype::kBf16}) {
      test::set_level(level);
      for (const Shape& s : kShapes) {
        SCOPED_TRACE(std::string(simd_level_name(level)) + " " + describe(s) +
                     (dtype == Dtype::kBf16 ? " bf16" : ""));
        test::set_threads(1);
        const Outputs one = run_flash(s, dtype);
        for (int threads : {2, 3}) {
          test::set_threads(threads);
          const Outputs n = run_flash(s, dtype);
          EXPECT_TRUE(bitwise_equal(one.out, n.out)) << "out, threads " << threads;
          EXPECT_TRUE(bitwise_equal(one.lse, n.lse)) << "lse, threads " << threads;
          EXPECT_TRUE(bitwise_equal(one.dqkv, n.dqkv)) << "dqkv, threads " << threads;
        }
      }
    }
}

// --dtype bf16 (ExecContext::dtype = kBf16): the kernel against ref::flash_attention_*_bf16 in
// double, which rounds the products' inputs at the same points. A weight or a score's gradient
// (exp in float here, in double in the twin) can land on either side of a bf16 rounding boundary
// where the two differ in their last float bit: a rare element then differs by one bf16 step of
// it. So: nearly every element within fp32's tolerance of the twin and every one within a few bf16
// steps, while most are off fp32 attention's numbers (the rounding happens).
struct Bf16Twin {
  std::vector<double> out, lse, dqkv;
};

// The twin's forward on the test's qkv; its backward from the kernel's own out and lse (as the
// kernel's backward takes them), so that the backward is checked on its own.
Bf16Twin run_bf16_twin(const Shape& s, const Outputs& kernel) {
  const size_t BT = size_t(s.B) * s.T;
  const auto qkv = to_double(random_floats(BT * 3 * s.C, 31));
  const auto dout = to_double(random_floats(BT * s.C, 32));
  Bf16Twin t;
  t.out.assign(BT * s.C, 0.0);
  t.lse.assign(size_t(s.B) * s.NH * s.T, 0.0);
  t.dqkv.assign(BT * 3 * s.C, 0.0);
  ref::flash_attention_forward_bf16(t.out.data(), t.lse.data(), qkv.data(), s.B, s.T, s.C, s.NH);
  const auto out = to_double(kernel.out), lse = to_double(kernel.lse);
  ref::flash_attention_backward_bf16(t.dqkv.data(), dout.data(), out.data(), lse.data(), qkv.data(),
                                     s.B, s.T, s.C, s.NH);
  return t;
}

// Nearly all within fp32's tolerance of want, all within a few bf16 steps, and far from fp32's.
void expect_bf16_twin(const std::vector<float>& got, const std::vector<double>& want,
                      const std::vector<double>& fp32, double atol, const char* name) {
  EXPECT_LE(test::share_off(got, want, atol), 0.01) << name;
  EXPECT_TRUE(all_close(got, want, 2e-2, 2e-2)) << name;
  // (fp32's kernel: none off; here 17-96%: dqkv's small elements sit within the tolerance either
  // way)
  EXPECT_GE(test::share_off(got, fp32, atol), 0.1) << name << " looks unrounded";
}

// The forward is its twin's numbers when one key tile holds every row (T <= tile): its weights
// are then rounded against the row's own max, as the twin's.
TEST(CpuFlashAttention, Bf16ForwardRoundsWhereItsTwinDoes) {
  test::KernelEnv env;
  const Shape one_tile[] = {{2, 37, 64, 2, 64}, {2, 64, 192, 3, 64}, {1, 100, 48, 4, 128}};
  for (const Shape& s : one_tile) {
    const RefOutputs fp32 = run_ref(s);
    for (SimdLevel level : test::simd_levels()) {
      test::set_level(level);
      SCOPED_TRACE(std::string(simd_level_name(level)) + " " + describe(s));
      const Outputs o = run_flash(s, Dtype::kBf16);
      const Bf16Twin t = run_bf16_twin(s, o);
      const double atol = 1e-6 * s.T + 1e-5;
      expect_bf16_twin(o.out, t.out, fp32.out, atol, "out");
      EXPECT_TRUE(all_close(o.lse, t.lse, 1e-5, 1e-5)) << "lse (from rounded q, k)";
    }
  }
}

// With several key tiles the forward rounds each weight against the running max, then rescales:
// each weight within two roundings (2 u, u = 2^-9 relative) of the twin's, so each out element
// within 2 u sum_j w_j |v_j| of it (w the weights, v rounded) plus fp32's tolerance. The backward
// rounds where its twin does at any tiling.
TEST(CpuFlashAttention, Bf16MatchesItsTwinAtAnyTiling) {
  test::KernelEnv env;
  const double u = std::ldexp(1.0, -9);
  for (const Shape& s : kShapes) {
    const RefOutputs fp32 = run_ref(s);
    // The twin's weights (ref::attention_forward with bf16: the same rounded q and k) and
    // sum_j w_j |v_j| per out element.
    const size_t BT = size_t(s.B) * s.T, TT = size_t(s.B) * s.NH * s.T * s.T;
    const auto qkv = to_double(random_floats(BT * 3 * s.C, 31));
    std::vector<double> out(BT * s.C), preatt(TT), att(TT), wv(BT * s.C, 0.0);
    const double* no_dropout = nullptr;
    ref::attention_forward(out.data(), preatt.data(), att.data(), qkv.data(), no_dropout, s.B, s.T,
                           s.C, s.NH, true);
    const int HS = s.C / s.NH;
    for (int b = 0; b < s.B; ++b)
      for (int h = 0; h < s.NH; ++h)
        for (int t = 0; t < s.T; ++t)
          for (int j = 0; j <= t; ++j) {
            const double w = att[((size_t(b) * s.NH + h) * s.T + t) * s.T + j];
            const double* v = qkv.data() + (size_t(b) * s.T + j) * 3 * s.C + 2 * s.C + h * HS;
            for (int i = 0; i < HS; ++i)
              wv[(size_t(b) * s.T + t) * s.C + h * HS + i] +=
                  w * std::fabs(double(ref::round_bf16(float(v[i]))));
          }
    for (SimdLevel level : test::simd_levels()) {
      test::set_level(level);
      SCOPED_TRACE(std::string(simd_level_name(level)) + " " + describe(s));
      const Outputs o = run_flash(s, Dtype::kBf16);
      const Bf16Twin t = run_bf16_twin(s, o);
      const double atol = 1e-6 * s.T + 1e-5;
      int64_t past = 0;
      for (size_t i = 0; i < o.out.size(); ++i)
        past += !(std::fabs(o.out[i] - t.out[i]) <= 2 * u * wv[i] + atol);
      EXPECT_EQ(past, 0) << "out elements past the bound";
      EXPECT_GE(test::share_off(o.out, fp32.out, atol), 0.1) << "out looks unrounded";
      EXPECT_TRUE(all_close(o.lse, t.lse, 1e-5, 1e-5)) << "lse";
      expect_bf16_twin(o.dqkv, t.dqkv, fp32.dqkv, atol, "dqkv");
    }
  }
}

TEST(CpuFlashAttention, RejectsBadArguments) {
  std::vector<float> qkv(3 * 48), out(48), lse(3);
  EXPECT_THROW(cpu::detail::flash_attention_forward_tiled(test::ctx(), out.data(), lse.data(),
                                                          qkv.data(), 1, 1, 48, 5, 64),
               Error);  // C not divisible by NH
  EXPECT_THROW(cpu::detail::flash_attention_forward_tiled(test::ctx(), out.data(), lse.data(),
                                                          qkv.data(), 1, 1, 48, 3, 24),
               Error);  // tile not a multiple of 16
}

}  // namespace
}  // namespace scratchgpt
