// cpu_adamw_test.cpp: cpu::adamw_* against ref::adamw bit for bit, at every SIMD level, on sizes
// that are not multiples of the vector width and span several parallel chunks, over many arrays
// in one pass, with a clip coefficient, with streamed and plain stores; 1 vs 2 vs 3 threads.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdlib>

#include "core/check.h"
#include "cpu_test_util.h"
#include "kernels/cpu/adamw.h"
#include "kernels/cpu/matmul.h"
#include "kernels/cpu/matmul_backend.h"
#include "kernels/ref/adamw.h"

namespace scratchgpt {
namespace {

using namespace test;  // cpu_test_util.h

TEST(CpuAdamW, AdamWEqualsReferenceBitForBit) {
  for_levels_and_threads([](int64_t n) {
    auto p = random_floats(n, 1), g = random_floats(n, 2), m = random_floats(n, 3, -0.1f, 0.1f),
         v = random_floats(n, 4, 0.0f, 0.01f);
    auto rp = p, rm = m, rv = v;
    for (int t = 1; t <= 3; ++t) {
      cpu::adamw_update(test::ctx(), p.data(), g.data(), m.data(), v.data(), n, 1e-3f, 0.9f, 0.95f,
                        1e-8f, 0.1f, t);
      ref::adamw_update(rp.data(), g.data(), rm.data(), rv.data(), n, 1e-3f, 0.9f, 0.95f, 1e-8f,
                        0.1f, t);
    }
    EXPECT_TRUE(bitwise_equal(p, rp));
    EXPECT_TRUE(bitwise_equal(m, rm));
    EXPECT_TRUE(bitwise_equal(v, rv));
    return concat({&p, &m, &v});
  });
}

// Many arrays in one pass (sizes around the chunk of 16384, different weight decays, a clip
// coefficient) equal the reference array by array, bit for bit, with 1, 2 and 3 threads.
TEST(CpuAdamW, AdamWOverManyArraysEqualsReferenceArrayByArray) {
  test::KernelEnv env;
  const int64_t sizes[] = {1, 100, 16384, 16385, 50000, 7};
  const float decays[] = {0.1f, 0.0f, 0.1f, 0.0f, 0.1f, 0.1f};
  const int count = 6;
  for (SimdLevel level : test::simd_levels())
    for (int threads : {1, 2, 3}) {
      test::set_level(level);
      test::set_threads(threads);
      SCOPED_TRACE(std::string(simd_level_name(level)) + " threads=" + std::to_string(threads));
      std::vector<std::vector<float>> p, g, m, v, rp, rm, rv;
      std::vector<cpu::AdamWArray> arrays;
      for (int a = 0; a < count; ++a) {
        const int64_t n = sizes[a];
        p.push_back(random_floats(n, 10 + a));
        g.push_back(random_floats(n, 20 + a));
        m.push_back(random_floats(n, 30 + a, -0.1f, 0.1f));
        v.push_back(random_floats(n, 40 + a, 0.0f, 0.01f));
      }
      rp = p, rm = m, rv = v;
      for (int a = 0; a < count; ++a)
        arrays.push_back({p[a].data(), g[a].data(), m[a].data(), v[a].data(), sizes[a], decays[a]});
      for (int t = 1; t <= 2; ++t) {
        cpu::adamw_update_all(test::ctx(), count, arrays.data(), 1e-3f, 0.9f, 0.95f, 1e-8f, t,
                              0.75f);
        for (int a = 0; a < count; ++a)
          ref::adamw_update(rp[a].data(), g[a].data(), rm[a].data(), rv[a].data(), sizes[a], 1e-3f,
                            0.9f, 0.95f, 1e-8f, decays[a], t, 0.75f);
      }
      for (int a = 0; a < count; ++a) {
        EXPECT_TRUE(bitwise_equal(p[a], rp[a])) << "param of array " << a;
        EXPECT_TRUE(bitwise_equal(m[a], rm[a])) << "m of array " << a;
        EXPECT_TRUE(bitwise_equal(v[a], rv[a])) << "v of array " << a;
      }
    }
}

// A clip coefficient folded into the update equals clipping the gradient first (g *= coef).
TEST(CpuAdamW, AdamWWithGradScaleEqualsScalingTheGradientFirst) {
  for_levels_and_threads([](int64_t n) {
    auto p = random_floats(n, 5), g = random_floats(n, 6, -3.0f, 3.0f),
         m = random_floats(n, 7, -0.1f, 0.1f), v = random_floats(n, 8, 0.0f, 0.01f);
    const float coef = 0.3183f;
    auto rp = p, rm = m, rv = v, clipped = g;
    for (float& x : clipped) x *= coef;
    for (int t = 1; t <= 2; ++t) {
      cpu::adamw_update(test::ctx(), p.data(), g.data(), m.data(), v.data(), n, 1e-3f, 0.9f, 0.99f,
                        1e-8f, 0.1f, t, coef);
      ref::adamw_update(rp.data(), clipped.data(), rm.data(), rv.data(), n, 1e-3f, 0.9f, 0.99f,
                        1e-8f, 0.1f, t);
    }
    EXPECT_TRUE(bitwise_equal(p, rp));
    EXPECT_TRUE(bitwise_equal(m, rm));
    EXPECT_TRUE(bitwise_equal(v, rv));
    return concat({&p, &m, &v});
  });
}

// With more than one thread the parameters are written with non-temporal stores where they are
// aligned to the vector (adamw.cpp): arrays at a 64-byte boundary and one float past it (plain
// stores), on 1 and 2 threads, all equal to the reference bit for bit, and the streamed values
// are there for the caller to read once the call returns.
TEST(CpuAdamW, AdamWStreamedOrPlainStoresWriteTheReferenceBits) {
  test::KernelEnv env;
  const int64_t n = 3 * 16384 + 21;  // three chunks and a tail
  struct Aligned {
    float* p;
    explicit Aligned(int64_t floats)
        : p(static_cast<float*>(std::aligned_alloc(64, ((floats * 4 + 63) / 64) * 64))) {}
    ~Aligned() { std::free(p); }
  };
  for (SimdLevel level : test::simd_levels())
    for (int threads : {1, 2})
      for (int offset : {0, 1}) {
        test::set_level(level);
        test::set_threads(threads);
        SCOPED_TRACE(std::string(simd_level_name(level)) + " threads=" + std::to_string(threads) +
                     " offset=" + std::to_string(offset));
        Aligned pb(n + 16), mb(n + 16), vb(n + 16);
        float *p = pb.p + offset, *m = mb.p + offset, *v = vb.p + offset;
        const auto p0 = random_floats(n, 51), g = random_floats(n, 52),
                   m0 = random_floats(n, 53, -0.1f, 0.1f), v0 = random_floats(n, 54, 0.0f, 0.01f);
        std::copy(p0.begin(), p0.end(), p);
        std::copy(m0.begin(), m0.end(), m);
        std::copy(v0.begin(), v0.end(), v);
        auto rp = p0, rm = m0, rv = v0;
        const cpu::AdamWArray array{p, g.data(), m, v, n, 0.1f};
        for (int t = 1; t <= 2; ++t) {
          cpu::adamw_update_all(test::ctx(), 1, &array, 1e-3f, 0.9f, 0.95f, 1e-8f, t, 0.5f);
          ref::adamw_update(rp.data(), g.data(), rm.data(), rv.data(), n, 1e-3f, 0.9f, 0.95f,
                            1e-8f, 0.1f, t, 0.5f);
        }
        EXPECT_TRUE(bitwise_equal(std::vector<float>(p, p + n), rp));
        EXPECT_TRUE(bitwise_equal(std::vector<float>(m, m + n), rm));
        EXPECT_TRUE(bitwise_equal(std::vector<float>(v, v + n), rv));
      }
}

// --dtype bf16: a weight whose packed pairs AdamW renews as it writes it (AdamWArray::pairs) gets
// the values of the plain update and, starting from words that are all garbage, the words of
// packing the new values whole; at every level, on both matmul backends' layouts, with 1 to 3
// threads, for weights whose rows end inside a block and columns inside a panel.
TEST(CpuAdamW, AWeightsPairsArePackedAgainFromTheNewValues) {
  test::KernelEnv env;
  std::vector<MatmulBackend> backends = {MatmulBackend::kOwn};
  if (cpu::onednn_has_bf16()) backends.push_back(MatmulBackend::kOneDnn);
  struct WeightShape {
    int C, OC;
  };
  for (MatmulBackend backend : backends)
    for (SimdLevel level : test::simd_levels())
      for (int threads : {1, 2, 3})
        for (const WeightShape s : {WeightShape{70, 100}, {33, 211}, {128, 384}, {600, 50}}) {
          test::set_level(level);
          test::set_threads(threads);
          test::test_context().ctx.matmul = backend;
          ExecContext ex = test::ctx();
          ex.dtype = Dtype::kBf16;
          SCOPED_TRACE(std::string(simd_level_name(level)) + " " +
                       cpu::matmul_backend_name(backend) + " threads=" + std::to_string(threads) +
                       " C=" + std::to_string(s.C) + " OC=" + std::to_string(s.OC));
          const int64_t n = int64_t{s.OC} * s.C, other = 5000;
          const auto g = random_floats(n, 61), og = random_floats(other, 62);
          auto p = random_floats(n, 63), m = random_floats(n, 64, -0.1f, 0.1f),
               v = random_floats(n, 65, 0.0f, 0.01f);
          auto op = random_floats(other, 66), om = random_floats(other, 67, -0.1f, 0.1f),
               ov = random_floats(other, 68, 0.0f, 0.01f);
          auto rp = p, rm = m, rv = v;
          std::vector<uint32_t> words(cpu::matmul_weight_pairs_words(ex, s.C, s.OC), 0xdeadbeefu);
          const cpu::WeightPairsWords pairs{p.data(), words.data(), s.C, s.OC};
          const cpu::AdamWArray arrays[] = {
              {op.data(), og.data(), om.data(), ov.data(), other, 0.0f},
              {p.data(), g.data(), m.data(), v.data(), n, 0.1f, &pairs}};
          const cpu::AdamWArray plain{rp.data(), g.data(), rm.data(), rv.data(), n, 0.1f};
          cpu::adamw_update_all(ex, 2, arrays, 1e-3f, 0.9f, 0.95f, 1e-8f, 3, 0.5f);
          cpu::adamw_update_all(ex, 1, &plain, 1e-3f, 0.9f, 0.95f, 1e-8f, 3, 0.5f);
          EXPECT_TRUE(bitwise_equal(p, rp)) << "param";
          EXPECT_TRUE(bitwise_equal(m, rm)) << "m";
          EXPECT_TRUE(bitwise_equal(v, rv)) << "v";
          std::vector<uint32_t> want(words.size(), 0xdeadbeefu);  // (padding: left as it was)
          cpu::matmul_pack_weight_bf16(ex, rp.data(), s.C, s.OC, want.data());
          EXPECT_EQ(words, want) << "the packed words";
          // pairs of another array: an error, nothing written
          const cpu::AdamWArray wrong{rp.data(), g.data(), rm.data(), rv.data(), n, 0.1f, &pairs};
          const auto before = rp;
          EXPECT_THROW(cpu::adamw_update_all(ex, 1, &wrong, 1e-3f, 0.9f, 0.95f, 1e-8f, 4), Error);
          EXPECT_TRUE(bitwise_equal(rp, before));
        }
}

}  // namespace
}  // namespace scratchgpt
