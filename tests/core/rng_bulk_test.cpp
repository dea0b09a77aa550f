// rng_bulk_test.cpp: Rng's block draws (fill_raw, rand/uniform, bernoulli_scalar, dropout_noise)
// against their one-draw-at-a-time definitions, at every SIMD level this CPU runs: the raw stream
// against std::mt19937, the transforms against uniform_double() / random() per element, the
// AVX2 block kernels against their scalar twins; and the torch fixtures of rng_test.cpp replayed
// at each level.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <random>
#include <string>
#include <vector>

#include "core/rng.h"
#include "core/rng_fixture_replay.h"
#include "core/rng_kernels.h"

using namespace scratchgpt;

namespace {

std::vector<SimdLevel> levels() {
  std::vector<SimdLevel> out = {SimdLevel::kScalar};
  if (detected_simd_level() >= SimdLevel::kAvx2) out.push_back(SimdLevel::kAvx2);
  return out;
}

// The level the generators of the running body take (at_each_level sets it).
SimdLevel g_level = SimdLevel::kScalar;

// A generator seeded with seed that draws at the level under test (Rng::set_simd_level).
Rng leveled(uint64_t seed) {
  Rng r(seed);
  r.set_simd_level(g_level);
  return r;
}

// Runs body once per level; the body's generators come from leveled().
template <typename Body>
void at_each_level(Body body) {
  for (SimdLevel level : levels()) {
    g_level = level;
    SCOPED_TRACE(std::string("simd level ") + simd_level_name(level));
    body();
  }
  g_level = detected_simd_level();
}

// The per-element definitions the bulk calls must reproduce.
float uniform_one(Rng& r, float from, float to) {
  const float x = static_cast<float>(r.random() & ((1u << 24) - 1)) * (1.0f / (1u << 24));
  return std::fma(x, to - from, from);
}
float bernoulli_one(Rng& r, double p) { return r.uniform_double() < p ? 1.0f : 0.0f; }

}  // namespace

TEST(RngBulk, FillRawIsTheMt19937StreamFromAnyPositionAndInterleaved) {
  // Chunk sizes around the 624-word block and the 8-lane width, starting at odd offsets; every
  // chunk alternates between fill_raw and single random() calls. ~9 twists in all.
  const std::vector<int64_t> chunks = {1, 7, 8,    9,    616, 623, 624, 625,  1, 1247,
                                       2, 3, 1248, 1249, 5,   17,  311, 2048, 3, 4099};
  at_each_level([&] {
    for (uint32_t seed : {0u, 42u, 1337u}) {
      Rng bulk = leveled(seed), single = leveled(seed);
      std::mt19937 ref(seed);
      std::vector<uint32_t> got;
      for (size_t c = 0; c < chunks.size(); ++c) {
        const int64_t n = chunks[c];
        got.assign(static_cast<size_t>(n), 0u);
        if (c % 3 == 1) {
          for (auto& g : got) g = bulk.random();
        } else {
          bulk.fill_raw(got.data(), n);
        }
        for (int64_t i = 0; i < n; ++i) {
          const uint32_t want = ref();
          ASSERT_EQ(got[i], want) << "seed " << seed << " chunk " << c << " word " << i;
          ASSERT_EQ(single.random(), want);
        }
        // Same position, same state: a checkpoint taken after bulk draws is the scalar one.
        ASSERT_EQ(bulk.get_state(), single.get_state()) << "seed " << seed << " chunk " << c;
      }
      bulk.fill_raw(got.data(), 0);  // a no-op, twist pending or not
      EXPECT_EQ(bulk.random(), ref());
    }
  });
}

TEST(RngBulk, FillRawRightAfterATwistAndAtTheLastWordOfTheBlock) {
  at_each_level([] {
    for (int64_t skip : {0, 1, 622, 623, 624, 625, 1247, 1248}) {
      Rng rng = leveled(9);
      std::mt19937 ref(9u);
      for (int64_t i = 0; i < skip; ++i) ASSERT_EQ(rng.random(), ref());
      std::vector<uint32_t> got(1500);
      rng.fill_raw(got.data(), static_cast<int64_t>(got.size()));
      for (size_t i = 0; i < got.size(); ++i) ASSERT_EQ(got[i], ref()) << "skip " << skip;
      // The state after a bulk call must survive a save/restore (its position fields valid).
      Rng copy = leveled(0);
      copy.set_state(rng.get_state());
      EXPECT_EQ(copy.random(), ref()) << "skip " << skip;
    }
  });
}

TEST(RngBulk, Avx2KernelsMatchTheirScalarTwins) {
  if (detected_simd_level() < SimdLevel::kAvx2) GTEST_SKIP() << "no AVX2 on this CPU";
  using namespace rng_detail;
  std::mt19937 gen(123u);
  std::vector<uint32_t> a(kMtN), b(kMtN);
  for (auto& x : a) x = gen();
  b = a;
  for (int twist = 0; twist < 50; ++twist) {  // arbitrary states, not only reachable ones
    mt_twist_scalar(a.data());
    mt_twist_avx2(b.data());
    ASSERT_EQ(a, b) << "twist " << twist;
  }
  for (int64_t n : {0, 1, 7, 8, 9, 100, 624}) {
    std::vector<uint32_t> ta(static_cast<size_t>(n) + 1, 7u), tb(static_cast<size_t>(n) + 1, 7u);
    mt_temper_scalar(ta.data(), a.data(), n);
    mt_temper_avx2(tb.data(), a.data(), n);
    ASSERT_EQ(ta, tb) << "temper n " << n;
  }
  std::vector<uint32_t> words(2 * 1003);
  for (auto& w : words) w = gen();
  for (uint64_t threshold : {uint64_t{0}, uint64_t{1}, uint64_t{1} << 52, (uint64_t{1} << 53) - 1,
                             uint64_t{1} << 53, uint64_t{3141592653589793}}) {
    for (int64_t n : {1003, 8, 5}) {
      std::vector<float> fa(static_cast<size_t>(n)), fb(static_cast<size_t>(n));
      bernoulli53_scalar(fa.data(), words.data(), n, threshold, 1.25f);
      bernoulli53_avx2(fb.data(), words.data(), n, threshold, 1.25f);
      ASSERT_EQ(fa, fb) << "threshold " << threshold << " n " << n;
    }
  }
  for (int64_t n : {2006, 9, 3}) {
    std::vector<float> fa(static_cast<size_t>(n)), fb(static_cast<size_t>(n));
    uniform24_scalar(fa.data(), words.data(), n, -0.3f, 2.7f);
    uniform24_avx2(fb.data(), words.data(), n, -0.3f, 2.7f);
    ASSERT_EQ(fa, fb) << "uniform n " << n;
  }
  // The multinomial argmax's block test: one category that may reach the cut (u = 0, or p just
  // above cut * u) at each position of blocks of every length, among ones just below it.
  std::uniform_real_distribution<double> unit(1e-3, 1.0);
  for (double cut : {0.0, 0.5, 3.0}) {
    for (int64_t m = 0; m <= 19; ++m) {
      for (int64_t at = -1; at < m; ++at) {
        std::vector<double> u(static_cast<size_t>(m));
        std::vector<float> p(static_cast<size_t>(m));
        for (int64_t i = 0; i < m; ++i) {
          u[i] = unit(gen);
          // the largest float whose double is <= cut * u (0 when cut is 0)
          float below = static_cast<float>(cut * u[i]);
          if (static_cast<double>(below) > cut * u[i]) below = std::nextafter(below, 0.0f);
          p[i] = below;
        }
        if (at >= 0 && at % 2 == 0) u[at] = 0.0;
        if (at >= 0 && at % 2 == 1) p[at] = std::nextafter(p[at], 10.0f);
        const bool want = at >= 0;
        ASSERT_EQ(any_may_reach_scalar(p.data(), u.data(), m, cut), want) << m << " " << at;
        ASSERT_EQ(any_may_reach_avx2(p.data(), u.data(), m, cut), want) << m << " " << at;
      }
    }
  }
}

TEST(RngBulk, BernoulliScalarIsUniformDoubleBelowP) {
  const double tiny = std::ldexp(1.0, -53);
  const std::vector<double> ps = {0.2, 0.5, 0.9, 0.8, 1e-6, tiny, 1.0 - 1e-6, 1.0 - tiny, 0.0, 1.0};
  at_each_level([&] {
    for (double p : ps) {
      Rng bulk = leveled(2024), single = leveled(2024);
      bulk.random();  // start at an odd word: every element's two draws straddle the blocks
      single.random();
      const int64_t n = 5003;  // several stack blocks and a ragged 8-lane tail
      std::vector<float> got(static_cast<size_t>(n));
      bulk.bernoulli_scalar(got.data(), n, p);
      int64_t kept = 0;
      for (int64_t i = 0; i < n; ++i) {
        const float want = bernoulli_one(single, p);
        ASSERT_EQ(got[i], want) << "p " << p << " element " << i;
        kept += want == 1.0f;
      }
      ASSERT_EQ(bulk.random(), single.random()) << "p " << p << ": not the same number of draws";
      if (p == 0.2) {
        EXPECT_NEAR(static_cast<double>(kept) / n, 0.2, 0.03);
      }
    }
  });
}

TEST(RngBulk, BernoulliScalarAtTheExactThresholdOfADrawnValue) {
  // p equal to a drawn u must give 0 for that element (u < u is false); one ulp above gives 1.
  at_each_level([] {
    for (int k : {0, 5, 311, 312, 1000}) {
      Rng probe = leveled(77);
      double u = 0.0;
      for (int i = 0; i <= k; ++i) u = probe.uniform_double();
      for (double p : {u, std::nextafter(u, 2.0), std::nextafter(u, -1.0)}) {
        Rng bulk = leveled(77), single = leveled(77);
        std::vector<float> got(static_cast<size_t>(k) + 9);
        bulk.bernoulli_scalar(got.data(), static_cast<int64_t>(got.size()), p);
        for (size_t i = 0; i < got.size(); ++i) {
          ASSERT_EQ(got[i], bernoulli_one(single, p)) << "k " << k << " element " << i;
        }
        EXPECT_EQ(got[static_cast<size_t>(k)], p > u ? 1.0f : 0.0f) << "k " << k;
      }
    }
  });
}

TEST(RngBulk, DropoutNoiseIsTheScaledKeepMask) {
  const std::vector<double> ps = {0.2, 0.1, 0.5, 0.9, 1e-7, 1.0 - 1e-7};
  at_each_level([&] {
    for (double p : ps) {
      Rng bulk = leveled(31337), single = leveled(31337);
      for (int i = 0; i < 3; ++i) bulk.random(), single.random();
      const int64_t n = 4099;
      std::vector<float> got(static_cast<size_t>(n));
      bulk.dropout_noise(got.data(), n, p);
      // nn.Dropout: bernoulli_(1 - p), then div_(1 - p) in float.
      const float keep = static_cast<float>(1.0 - p);
      for (int64_t i = 0; i < n; ++i) {
        const float want = bernoulli_one(single, 1.0 - p) / keep;
        ASSERT_EQ(got[i], want) << "p " << p << " element " << i;
        ASSERT_FALSE(std::signbit(got[i]));
      }
      ASSERT_EQ(bulk.random(), single.random()) << "p " << p;
    }
    // p = 0 and p = 1 draw nothing.
    Rng a = leveled(5), b = leveled(5);
    std::vector<float> v(100);
    a.dropout_noise(v.data(), 100, 0.0);
    for (float x : v) ASSERT_EQ(x, 1.0f);
    a.dropout_noise(v.data(), 100, 1.0);
    for (float x : v) ASSERT_EQ(x, 0.0f);
    EXPECT_EQ(a.random(), b.random());
  });
}

TEST(RngBulk, RandAndUniformAreOneDrawPerElement) {
  at_each_level([] {
    for (int64_t n : {1, 7, 8, 15, 16, 17, 2048, 2049, 5000}) {
      Rng bulk = leveled(8), single = leveled(8);
      for (int i = 0; i < 5; ++i) bulk.random(), single.random();
      std::vector<float> got(static_cast<size_t>(n));
      bulk.rand(got.data(), n);
      for (int64_t i = 0; i < n; ++i) ASSERT_EQ(got[i], uniform_one(single, 0.0f, 1.0f)) << i;
      bulk.uniform(got.data(), n, -0.125f, 3.0f);
      for (int64_t i = 0; i < n; ++i) ASSERT_EQ(got[i], uniform_one(single, -0.125f, 3.0f)) << i;
      ASSERT_EQ(bulk.random(), single.random()) << "n " << n;
    }
  });
}

TEST(RngBulk, EveryLevelDrawsTheSameNormals) {
  // randn (n >= 16) draws its uniforms through the bulk path; the levels must agree bit for bit
  // (torch's values themselves are checked by rng_test's fixtures at the default level).
  std::vector<std::vector<float>> per_level;
  at_each_level([&] {
    Rng rng = leveled(4);
    std::vector<float> v(1000 + 16 + 3);
    rng.randn(v.data(), 1000);
    rng.randn(v.data() + 1000, 19);  // ragged: 16 fresh uniforms for the last 16
    per_level.push_back(v);
  });
  for (size_t l = 1; l < per_level.size(); ++l) EXPECT_EQ(per_level[l], per_level[0]);
}

TEST(RngBulk, TorchFixturesReplayAtEveryLevel) {
  at_each_level([] {
    const auto files = rng_fixture::rng_fixtures("mixed_");
    ASSERT_GE(files.size(), 6u) << "missing fixtures in " << rng_fixture::rng_fixture_dir();
    for (const auto& path : files) {
      Rng rng = leveled(1);
      const auto rep = rng_fixture::replay_rng_fixture(path, rng);
      EXPECT_GE(rep.calls, 3) << path;
      for (const auto& f : rep.failures) ADD_FAILURE() << f;
    }
  });
}
