// cpu_attention_decode_test.cpp: cpu::attention_decode_forward (one query against a KV cache)
// against the last row of ref::attention_forward over the whole sequence, run in double, at every
// SIMD level this CPU has; head sizes and context lengths with vector tails; 1, 2 and 3 threads
// bitwise identical.
#include <gtest/gtest.h>

#include <string>

#include "cpu_test_util.h"
#include "kernels/cpu/attention_decode.h"
#include "kernels/ref/attention.h"

namespace scratchgpt {
namespace {

using namespace test;  // cpu_test_util.h

struct Shape {
  int T, C, NH;  // T: cached positions including the new one
};

// Long enough contexts that the heads are threaded (T * C >= 16384) as well as short ones.
const Shape kShapes[] = {{1, 8, 2},    {5, 12, 3},    {17, 64, 4}, {33, 40, 8},
                         {100, 96, 6}, {257, 384, 6}, {70, 250, 5}};

// The new token's query row of qkv (T, 3C) and the cache built from its k and v parts.
struct Case {
  std::vector<float> qkv, q, k, v;  // (T, 3C), (C), (T, C), (T, C)
};

Case make_case(const Shape& s) {
  Case c;
  c.qkv = random_floats(size_t(s.T) * 3 * s.C, 7, -2.0f, 2.0f);
  c.q.assign(c.qkv.begin() + int64_t{s.T - 1} * 3 * s.C,
             c.qkv.begin() + int64_t{s.T - 1} * 3 * s.C + s.C);
  for (int t = 0; t < s.T; ++t) {
    const float* row = c.qkv.data() + int64_t{t} * 3 * s.C;
    c.k.insert(c.k.end(), row + s.C, row + 2 * s.C);
    c.v.insert(c.v.end(), row + 2 * s.C, row + 3 * s.C);
  }
  return c;
}

std::vector<float> run_cpu(const Shape& s, const Case& c) {
  std::vector<float> out(s.C, 123.0f);
  std::vector<float> scratch(cpu::attention_decode_scratch_floats(s.T, s.C, s.NH), -7.0f);
  cpu::attention_decode_forward(test::ctx(), out.data(), c.q.data(), c.k.data(), c.v.data(), s.T,
                                s.C, s.NH, scratch.data());
  return out;
}

// The last row of the full causal attention in double.
std::vector<double> run_ref(const Shape& s, const Case& c) {
  const std::vector<double> qkv = to_double(c.qkv);
  std::vector<double> out(size_t(s.T) * s.C), preatt(size_t(s.NH) * s.T * s.T), att(preatt.size());
  ref::attention_forward<double>(out.data(), preatt.data(), att.data(), qkv.data(), nullptr, 1, s.T,
                                 s.C, s.NH);
  return std::vector<double>(out.end() - s.C, out.end());
}

std::string describe(SimdLevel level, const Shape& s) {
  return std::string(simd_level_name(level)) + " T=" + std::to_string(s.T) +
         " C=" + std::to_string(s.C) + " NH=" + std::to_string(s.NH);
}

TEST(CpuAttentionDecode, MatchesLastRowOfFullAttention) {
  test::KernelEnv env;
  for (const Shape& s : kShapes) {
    const Case c = make_case(s);
    const std::vector<double> r = run_ref(s, c);
    for (SimdLevel level : test::simd_levels()) {
      test::set_level(level);
      SCOPED_TRACE(describe(level, s));
      // Scores are HS-term dot products of values in [-2, 2] (error ~ HS * 4 * 2^-24 relative
      // to the largest), softmax weights sum to 1 and values are within [-2, 2].
      EXPECT_TRUE(all_close(run_cpu(s, c), r, 2e-5 * (s.C / s.NH), 1e-5));
    }
  }
}

TEST(CpuAttentionDecode, OneTwoAndThreeThreadsAreBitwiseIdentical) {
  test::KernelEnv env;
  for (SimdLevel level : test::simd_levels()) {
    test::set_level(level);
    for (const Shape& s : kShapes) {
      SCOPED_TRACE(describe(level, s));
      const Case c = make_case(s);
      test::set_threads(1);
      const std::vector<float> one = run_cpu(s, c);
      test::set_threads(2);
      const std::vector<float> two = run_cpu(s, c);
      test::set_threads(3);
      const std::vector<float> three = run_cpu(s, c);
      EXPECT_TRUE(bitwise_equal(one, two)) << "2 threads";
      EXPECT_TRUE(bitwise_equal(one, three)) << "3 threads";
    }
  }
}

}  // namespace
}  // namespace scratchgpt
