// cpu_quant_matvec_test.cpp: the bf16 and Q8 weights of --weights (kernels/cpu/quant_matvec.h)
// against their readable twins (kernels/ref/quant.h) and against exact arithmetic. The twins:
// bf16 rounding on hand-worked values (ties to even, NaN, overflow), Q8 quantisation within half a
// step per value. The fast kernels: Q8 bit for bit equal to ref::matvec_q8_forward at every SIMD
// level (integer block sums are exact and the float order is the same), bf16 bit for bit equal to
// the fp32 matvec on the widened weights and within the fp32 matvec's bound of ref in double; the
// Q8 result within its rigorous error bound of the exact product; 1, 2 and 3 threads bitwise.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <limits>
#include <string>
#include <vector>

#include "cpu_test_util.h"
#include "kernels/cpu/gemm.h"
#include "kernels/cpu/matvec.h"
#include "kernels/cpu/quant_matvec.h"
#include "kernels/cpu/simd/matvec_q8_simd.h"
#include "kernels/ref/matmul.h"
#include "kernels/ref/quant.h"

namespace scratchgpt {
namespace {

using namespace test;  // cpu_test_util.h
using cpu::WeightFormat;

struct Shape {
  int N, C, OC;
};
// C: below a block, whole blocks (fewer and more than 8, a multiple of 8), a padded last block;
// N: decode (1), a few rows, and more than 8 (the prompt's GEMM on AVX512_VNNI: odd and even N,
// whole and partial panels of 16 output rows, more than 8 blocks); OC: below and across the
// threading chunk.
const Shape kShapes[] = {{1, 1, 3},     {1, 31, 5},     {2, 32, 33},  {1, 100, 64},
                         {3, 256, 70},  {1, 768, 300},  {5, 520, 97}, {11, 96, 40},
                         {1, 3072, 65}, {9, 33, 129},   {33, 520, 70}, {24, 768, 48},
                         {10, 1, 17}};

std::string describe(SimdLevel level, const Shape& s) {
  return std::string(simd_level_name(level)) + " N=" + std::to_string(s.N) +
         " C=" + std::to_string(s.C) + " OC=" + std::to_string(s.OC);
}

std::vector<float> run_cpu(WeightFormat f, const Shape& s, bool with_bias) {
  const auto inp = random_floats(size_t(s.N) * s.C, 1);  // (N, C)
  const auto w = random_floats(size_t(s.OC) * s.C, 2);   // (OC, C)
  const auto bias = random_floats(s.OC, 3);              // (OC)
  const cpu::QuantizedWeight q = cpu::quantize_weight(ctx(), f, w.data(), s.OC, s.C);
  std::vector<float> out(size_t(s.N) * s.OC, 123.0f);  // (N, OC)
  cpu::quant_matvec_forward(ctx(), out.data(), inp.data(), q, with_bias ? bias.data() : nullptr,
                            s.N);
  return out;
}

std::vector<float> run_ref_q8(const Shape& s, bool with_bias) {
  const auto inp = random_floats(size_t(s.N) * s.C, 1);
  const auto w = random_floats(size_t(s.OC) * s.C, 2);
  const auto bias = random_floats(s.OC, 3);
  const int nb = ref::q8_blocks(s.C);
  std::vector<int8_t> qw(size_t(s.OC) * nb * 32), qx(size_t(nb) * 32);
  std::vector<float> dw(size_t(s.OC) * nb), dx(nb), out(size_t(s.N) * s.OC);
  for (int o = 0; o < s.OC; ++o)
    ref::quantize_q8(w.data() + size_t(o) * s.C, s.C, qw.data() + size_t(o) * nb * 32,
                     dw.data() + size_t(o) * nb);
  ref::matvec_q8_forward(out.data(), inp.data(), qw.data(), dw.data(),
                         with_bias ? bias.data() : nullptr, s.N, s.C, s.OC, qx.data(), dx.data());
  return out;
}

uint16_t bf16(float x) { return ref::bf16_from_float(x); }

TEST(RefQuant, Bf16RoundsToNearestEven) {
  EXPECT_EQ(bf16(1.0f), 0x3f80);
  EXPECT_EQ(bf16(-2.0f), 0xc000);
  EXPECT_EQ(bf16(1.0f + 0x1p-8f), 0x3f80);         // halfway, ties to the even 1.0
  EXPECT_EQ(bf16(1.0f + 3 * 0x1p-8f), 0x3f82);     // halfway, ties to the even 1 + 2^-6
  EXPECT_EQ(bf16(1.0f + 0x1p-8f + 0x1p-20f), 0x3f81);  // just above halfway: up
  EXPECT_EQ(bf16(std::numeric_limits<float>::max()), 0x7f80);  // rounds to +inf
  EXPECT_EQ(bf16(std::numeric_limits<float>::infinity()), 0x7f80);
  EXPECT_TRUE(std::isnan(ref::float_from_bf16(bf16(std::nanf("")))));
  EXPECT_EQ(ref::float_from_bf16(0x3f81), 1.0f + 0x1p-7f);
}

TEST(RefQuant, Q8IsWithinHalfAStepAndUsesTheFullRange) {
  const auto x = random_floats(100, 7, -3.0f, 3.0f);
  std::vector<float> z(40, 0.0f);
  std::vector<int8_t> q(128);
  std::vector<float> d(4);
  ref::quantize_q8(x.data(), 100, q.data(), d.data());
  for (int b = 0; b < 4; ++b) {
    int qmax = 0;
    for (int k = b * 32; k < b * 32 + 32; ++k) {
      if (k >= 100) {
        EXPECT_EQ(q[k], 0) << "padding at " << k;
        continue;
      }
      EXPECT_LE(std::fabs(x[k] - d[b] * q[k]), 0.5001 * d[b]) << k;
      qmax = std::max(qmax, std::abs(int{q[k]}));
    }
    EXPECT_EQ(qmax, 127) << "block " << b;
  }
  ref::quantize_q8(z.data(), 40, q.data(), d.data());
  EXPECT_EQ(d[0], 0.0f);
  EXPECT_EQ(q[5], 0);
}

// The inputs' quantisation at each level: the bits of ref::quantize_q8 (ties x * (1/d) = k + 0.5
// included: they round to even) and cx = -128 * each block's sum.
TEST(CpuQuantMatvec, InputQuantisationMatchesReferenceBitwiseAtEveryLevel) {
  const int N = 3;
  for (int C : {1, 31, 32, 64, 100, 768}) {
    auto x = random_floats(size_t(N) * C, 11, -4.0f, 4.0f);  // (N, C)
    // Row 1's first block: max 127, so d = 1 and x * (1/d) = x lands on the halves +-0.5, 1.5, ...
    x[size_t(C)] = 127.0f;
    for (int k = 1; k < std::min(C, 32); ++k) x[size_t(C) + k] = (k % 2 ? 1.0f : -1.0f) * (k - 0.5f);
    const int nb = ref::q8_blocks(C);
    std::vector<int8_t> rq(size_t(N) * nb * 32);
    std::vector<float> rd(size_t(N) * nb);
    std::vector<int32_t> rc(size_t(N) * nb);
    for (int n = 0; n < N; ++n) {
      ref::quantize_q8(x.data() + size_t(n) * C, C, rq.data() + size_t(n) * nb * 32,
                       rd.data() + size_t(n) * nb);
      for (int b = 0; b < nb; ++b) {
        int32_t s = 0;
        for (int k = 0; k < 32; ++k) s += rq[(size_t(n) * nb + b) * 32 + k];
        rc[size_t(n) * nb + b] = -128 * s;
      }
    }
    using Fn = cpu::detail::Q8QuantizeFn;
    std::vector<std::pair<SimdLevel, Fn>> fns = {{SimdLevel::kScalar, cpu::detail::quantize_q8_rows_scalar}};
    if (detected_simd_level() >= SimdLevel::kAvx2) fns.push_back({SimdLevel::kAvx2, cpu::detail::quantize_q8_rows_avx2});
    if (detected_simd_level() >= SimdLevel::kAvx512 && cpu_has_avx512_vnni())
      fns.push_back({SimdLevel::kAvx512, cpu::detail::quantize_q8_rows_avx512});
    for (const auto& [level, fn] : fns) {
      SCOPED_TRACE(std::string(simd_level_name(level)) + " C=" + std::to_string(C));
      std::vector<int8_t> q(rq.size(), 99);
      std::vector<float> d(rd.size(), -1.0f);
      std::vector<int32_t> c(rc.size(), 7);
      fn(x.data(), C, q.data(), d.data(), c.data(), 0, N);
      EXPECT_EQ(q, rq);
      EXPECT_TRUE(bitwise_equal(d, rd));
      EXPECT_EQ(c, rc);
    }
  }
}

TEST(CpuQuantMatvec, Q8MatchesReferenceBitwiseAtEveryLevel) {
  KernelEnv env;
  for (const Shape& s : kShapes)
    for (bool with_bias : {true, false}) {
      const std::vector<float> r = run_ref_q8(s, with_bias);
      for (SimdLevel level : simd_levels()) {
        set_level(level);
        SCOPED_TRACE(describe(level, s) + (with_bias ? " bias" : ""));
        EXPECT_TRUE(bitwise_equal(run_cpu(WeightFormat::kInt8, s, with_bias), r));
      }
    }
}

// |Q8 result - exact| <= sum_k (|x_k| dw/2 + |w_k| dx/2 + dx dw/4) (each factor is off by at
// most half its block's step) plus float rounding: a rigorous bound that a wrong scale breaks.
TEST(CpuQuantMatvec, Q8IsWithinItsErrorBoundOfTheExactProduct) {
  KernelEnv env;
  for (const Shape& s : kShapes) {
    SCOPED_TRACE(describe(ctx().isa, s));
    const auto inp = random_floats(size_t(s.N) * s.C, 1);
    const auto w = random_floats(size_t(s.OC) * s.C, 2);
    const std::vector<float> got = run_cpu(WeightFormat::kInt8, s, false);
    const int nb = ref::q8_blocks(s.C);
    std::vector<int8_t> q(size_t(nb) * 32);
    std::vector<float> dx(nb), dw(nb);
    int bad = 0;
    for (int n = 0; n < s.N; ++n) {
      ref::quantize_q8(inp.data() + size_t(n) * s.C, s.C, q.data(), dx.data());
      for (int o = 0; o < s.OC; ++o) {
        ref::quantize_q8(w.data() + size_t(o) * s.C, s.C, q.data(), dw.data());
        double exact = 0, bound = 1e-5;
        for (int k = 0; k < s.C; ++k) {
          const double xk = inp[size_t(n) * s.C + k], wk = w[size_t(o) * s.C + k];
          exact += xk * wk;
          bound += std::fabs(xk) * dw[k / 32] / 2 + std::fabs(wk) * dx[k / 32] / 2 +
                   double{dx[k / 32]} * dw[k / 32] / 4;
        }
        if (!(std::fabs(got[size_t(n) * s.OC + o] - exact) <= bound) && bad++ < 3)
          ADD_FAILURE() << "n=" << n << " o=" << o << " got " << got[size_t(n) * s.OC + o]
                        << " exact " << exact << " bound " << bound;
      }
    }
  }
}

// A prompt (N > 8) is the fp32 GEMM (gemm.h) on the widened weights instead.
TEST(CpuQuantMatvec, Bf16IsTheFp32MatvecOnWidenedWeights) {
  KernelEnv env;
  for (const Shape& s : kShapes) {
    const auto inp = random_floats(size_t(s.N) * s.C, 1);
    const auto w = random_floats(size_t(s.OC) * s.C, 2);
    const auto bias = random_floats(s.OC, 3);
    std::vector<float> widened(w.size());
    std::vector<double> wd(w.size());
    for (size_t i = 0; i < w.size(); ++i) wd[i] = widened[i] = ref::float_from_bf16(bf16(w[i]));
    std::vector<double> r(size_t(s.N) * s.OC);
    const std::vector<double> xd = to_double(inp), bd = to_double(bias);
    ref::matmul_forward(r.data(), xd.data(), wd.data(), bd.data(), s.N, s.C, s.OC);
    for (SimdLevel level : simd_levels()) {
      set_level(level);
      SCOPED_TRACE(describe(level, s));
      std::vector<float> fp32(size_t(s.N) * s.OC);
      if (s.N <= cpu::kMatvecMaxN)  // 8, as quant_matvec_forward's groups
        cpu::matvec_forward(ctx(), fp32.data(), inp.data(), widened.data(), bias.data(), s.N, s.C,
                            s.OC);
      else  // out (N, OC) = inp (N, C) @ widened^T + bias
        cpu::detail::gemm(level, {.M = s.N, .N = s.OC, .K = s.C,
                                  .A = inp.data(), .rs_a = s.C, .cs_a = 1,
                                  .B = widened.data(), .rs_b = 1, .cs_b = s.C,
                                  .C = fp32.data(), .ldc = s.OC, .init = true, .bias = bias.data()},
                          ctx().workers());
      const std::vector<float> got = run_cpu(WeightFormat::kBf16, s, true);
      EXPECT_TRUE(bitwise_equal(got, fp32));
      EXPECT_TRUE(all_close(got, r, 1e-6 * s.C + 1e-6, 1e-5));  // cpu_matvec_test's bound
    }
  }
}

TEST(CpuQuantMatvec, ManyRowsEqualRowByRow) {
  // Q8 gives each row the bits it gets alone at any N (a prompt's GEMM too); bf16 up to 8 rows
  // (its groups), past which it is the fp32 GEMM (above).
  KernelEnv env;
  for (WeightFormat f : {WeightFormat::kBf16, WeightFormat::kInt8}) {
    const Shape s{f == WeightFormat::kInt8 ? 37 : 8, 96, 40};
    const auto inp = random_floats(size_t(s.N) * s.C, 1);
    const auto w = random_floats(size_t(s.OC) * s.C, 2);
    const cpu::QuantizedWeight q = cpu::quantize_weight(ctx(), f, w.data(), s.OC, s.C);
    std::vector<float> all(size_t(s.N) * s.OC), one(size_t(s.N) * s.OC);
    cpu::quant_matvec_forward(ctx(), all.data(), inp.data(), q, nullptr, s.N);
    for (int n = 0; n < s.N; ++n)
      cpu::quant_matvec_forward(ctx(), one.data() + size_t(n) * s.OC,
                                inp.data() + size_t(n) * s.C, q, nullptr, 1);
    EXPECT_TRUE(bitwise_equal(all, one)) << cpu::kWeightFormatNames[static_cast<int>(f)].second;
  }
}

TEST(CpuQuantMatvec, OneTwoAndThreeThreadsAreBitwiseIdentical) {
  KernelEnv env;
  for (SimdLevel level : simd_levels()) {
    set_level(level);
    for (WeightFormat f : {WeightFormat::kBf16, WeightFormat::kInt8})
      for (const Shape& s : kShapes) {
        SCOPED_TRACE(describe(level, s));
        set_threads(1);
        const std::vector<float> one = run_cpu(f, s, true);
        for (int threads : {2, 3}) {
          set_threads(threads);
          EXPECT_TRUE(bitwise_equal(one, run_cpu(f, s, true))) << threads << " threads";
        }
      }
  }
}

}  // namespace
}  // namespace scratchgpt
