// rng_test.cpp: Rng against PyTorch 1.13 (fixtures from tools/make_rng_fixtures.py, compared bit
// for bit), the raw stream against std::mt19937, state save/restore, and bad-argument errors.
#include "core/rng.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <random>
#include <vector>

#include "core/check.h"
#include "core/rng_fixture_replay.h"
#include "core/rng_kernels.h"
#include "uniform_draw.h"

using namespace scratchgpt;
using scratchgpt::rng_fixture::replay_rng_fixture;
using scratchgpt::rng_fixture::rng_fixtures;

namespace {

void expect_exact_replay(const std::string& prefix, size_t min_files) {
  const auto files = rng_fixtures(prefix);
  ASSERT_GE(files.size(), min_files)
      << "missing fixtures " << prefix << "* in " << rng_fixture::rng_fixture_dir();
  for (const auto& path : files) {
    Rng rng(1);
    const auto rep = replay_rng_fixture(path, rng);
    EXPECT_GE(rep.calls, 3) << path;
    for (const auto& f : rep.failures) ADD_FAILURE() << f;
  }
}

// Everything a generator call changes, drawn through many kinds of calls.
std::vector<float> draw_mix(Rng& rng) {
  std::vector<float> v;
  float buf[300];
  int64_t ibuf[8];
  rng.randn(buf, 3);  // leaves a cached scalar normal behind
  v.insert(v.end(), buf, buf + 3);
  rng.randn(buf, 300);
  v.insert(v.end(), buf, buf + 300);
  rng.randn(buf, 5);
  v.insert(v.end(), buf, buf + 5);
  rng.randint(ibuf, 8, 0, int64_t{1} << 40);
  for (int64_t x : ibuf) v.push_back(static_cast<float>(x));
  rng.rand(buf, 7);
  v.insert(v.end(), buf, buf + 7);
  return v;
}

}  // namespace

TEST(Rng, RawStreamIsMt19937) {
  // torch seeds mt19937 with the low 32 bits of the seed, exactly like std::mt19937.
  for (uint64_t seed : {0ULL, 42ULL, 1337ULL, 5489ULL, (1ULL << 32) + 5}) {
    Rng rng(seed);
    std::mt19937 ref(static_cast<uint32_t>(seed));
    for (int i = 0; i < 2000; ++i)
      ASSERT_EQ(rng.random(), ref()) << "seed " << seed << " draw " << i;
  }
}

TEST(Rng, Random64IsTwoDrawsHighFirst) {
  Rng a(7), b(7);
  for (int i = 0; i < 100; ++i) {
    const uint64_t hi = b.random(), lo = b.random();
    ASSERT_EQ(a.random64(), (hi << 32) | lo);
  }
}

TEST(Rng, MixedCallSequencesMatchTorchBitForBit) { expect_exact_replay("mixed_", 6); }

TEST(Rng, LectureSamplingLoopMatchesTorch) { expect_exact_replay("sampling_seed", 1); }

TEST(Rng, ManualSeedRestartsTheStreamAndClearsTheNormalCache) {
  Rng a(3);
  float x[3], y[3];
  a.randn(x, 3);  // caches a second normal
  a.manual_seed(3);
  a.randn(y, 3);
  for (int i = 0; i < 3; ++i) EXPECT_EQ(x[i], y[i]);
}

TEST(Rng, StateRoundTripContinuesTheIdenticalStream) {
  Rng rng(1337);
  float warm[5];
  rng.randn(warm, 5);  // odd count: a cached normal is pending in the saved state
  const std::vector<uint8_t> state = rng.get_state();
  const std::vector<float> first = draw_mix(rng);
  Rng other(99);
  float junk[3];
  other.randn(junk, 3);  // other has its own pending cache, which set_state must replace
  other.set_state(state);
  EXPECT_EQ(draw_mix(other), first);
  rng.set_state(state);
  EXPECT_EQ(draw_mix(rng), first);
}

TEST(Rng, StateRoundTripAtEveryPositionOfTheMtBlock) {
  Rng rng(5);
  for (int step = 0; step < 700; step += 37) {
    const auto s = rng.get_state();
    const uint32_t expect = rng.random();
    Rng copy(0);
    copy.set_state(s);
    ASSERT_EQ(copy.random(), expect) << "after " << step << " draws";
    for (int i = 0; i < 36; ++i) rng.random();
  }
}

TEST(Rng, SetStateRejectsForeignBlobs) {
  Rng rng(1);
  std::vector<uint8_t> s = rng.get_state();
  EXPECT_THROW(rng.set_state(std::vector<uint8_t>(s.begin(), s.end() - 1)), Error);
  std::vector<uint8_t> bad_magic = s;
  bad_magic[0] ^= 0xff;
  EXPECT_THROW(rng.set_state(bad_magic), Error);
  EXPECT_THROW(rng.set_state({}), Error);
}

TEST(Rng, BadArgumentsAreErrors) {
  Rng rng(1);
  int64_t out[4];
  EXPECT_THROW(rng.randint(5, 5), Error);
  EXPECT_THROW(rng.randint(out, 4, 3, 2), Error);
  const float zero_row[3] = {0.0f, 0.0f, 0.0f};
  const float negative[3] = {0.5f, -0.1f, 0.6f};
  const float nan_row[3] = {0.5f, NAN, 0.6f};
  const float ok[3] = {0.2f, 0.3f, 0.5f};
  EXPECT_THROW(rng.multinomial(out, zero_row, 1, 3, 1, false), Error);
  EXPECT_THROW(rng.multinomial(out, negative, 1, 3, 1, true), Error);
  EXPECT_THROW(rng.multinomial(out, nan_row, 1, 3, 2, true), Error);
  EXPECT_THROW(rng.multinomial(out, ok, 1, 3, 4, false), Error);  // 4 > 3 without replacement
  EXPECT_THROW(rng.multinomial(out, ok, 1, 3, 0, true), Error);
  float mask[2];
  EXPECT_THROW(rng.bernoulli(mask, 2, 1.5f), Error);
  EXPECT_THROW(rng.bernoulli_scalar(mask, 2, -0.1), Error);
  EXPECT_THROW(rng.dropout_noise(mask, 2, NAN), Error);
  EXPECT_THROW(rng.randperm(out, -1), Error);
}

TEST(Rng, DropoutNoiseEdgeCasesDrawNothing) {
  // torch returns the input for p == 0 and zeros for p == 1 without touching the generator.
  Rng a(11), b(11);
  float noise[8];
  a.dropout_noise(noise, 8, 0.0);
  for (float v : noise) EXPECT_EQ(v, 1.0f);
  a.dropout_noise(noise, 8, 1.0);
  for (float v : noise) EXPECT_EQ(v, 0.0f);
  EXPECT_EQ(a.random(), b.random());
}

// uniform_doubles(n) is n calls of uniform_double(), from any position of the state and across
// fill_raw's blocks.
TEST(Rng, UniformDoublesAreUniformDoubleCalls) {
  for (int64_t skip : {0, 1, 623, 700}) {
    for (int64_t n : {1, 1023, 1024, 1025, 5000}) {
      Rng a(5), b(5);
      for (int64_t i = 0; i < skip; ++i) a.random(), b.random();
      std::vector<double> bulk(static_cast<size_t>(n));
      a.uniform_doubles(bulk.data(), n);
      for (int64_t i = 0; i < n; ++i)
        ASSERT_EQ(bulk[i], b.uniform_double()) << "skip " << skip << ", n " << n << ", i " << i;
      EXPECT_EQ(a.random(), b.random());
    }
  }
}

// The sampler's argmax of p / q, which takes a log only where the bound lets a category win,
// gives the twin's index (every q computed) on rows built to be hard: near-ties, equal entries
// (the first must win), zero probabilities, u = 0 (q = -0: -inf or NaN), u next to 0 and to 1,
// peaked and flat rows, quotients past the float range (inf), a first quotient of -inf, n from 1
// to GPT-2's 50257; with the block test in scalar code and in AVX2.
TEST(Rng, MultinomialArgmaxSkipsOnlyLogsThatCannotWin) {
  std::mt19937 gen(7);
  std::uniform_real_distribution<double> unit(0.0, 1.0);
  Rng draws(3);
  int checked = 0;
  for (int64_t n : {1, 2, 3, 7, 65, 1000, 50257}) {
    for (int trial = 0; trial < 40; ++trial) {
      std::vector<float> p(static_cast<size_t>(n));
      std::vector<double> u(static_cast<size_t>(n));
      draws.uniform_doubles(u.data(), n);
      const double scale = std::pow(10.0, unit(gen) * 4 - 2);  // flat to very peaked
      for (auto& x : p) x = static_cast<float>(std::exp(scale * unit(gen)));
      switch (trial % 9) {
        case 1:  // zeros
          for (int64_t i = 0; i < n; i += 2) p[i] = 0.0f;
          break;
        case 2:  // every p the same, and two equal quotients: the first wins
          std::fill(p.begin(), p.end(), 0.25f);
          if (n > 1) u[n - 1] = u[0];
          break;
        case 3:  // u = 0 at a nonzero and at a zero probability (NaN: the first NaN wins)
          u[n / 2] = 0.0;
          if (n > 2) p[n - 1] = 0.0f, u[n - 1] = 0.0;
          break;
        case 4:  // the smallest and largest uniforms
          u[0] = 1.0 / 9007199254740992.0;
          u[n - 1] = 1.0 - 1.0 / 9007199254740992.0;
          break;
        case 5:  // one category holds nearly all the mass
          std::fill(p.begin(), p.end(), 1e-30f);
          p[n / 3] = 1.0f;
          break;
        case 6:  // near-ties: quotients a few ulps apart
          for (int64_t i = 0; i < n; ++i) {
            u[i] = 0.5 + 1e-16 * static_cast<double>(i % 5);
            p[i] = std::nextafter(0.5f, 1.0f + static_cast<float>(i % 3));
          }
          break;
        case 7:  // the first quotient -inf (u = 0), every other probability 0: the second wins
          u[0] = 0.0;
          std::fill(p.begin() + 1, p.end(), 0.0f);
          break;
        case 8:  // small u falling by less than a float step: q = u (1 + u/2) rounded to
                 // float, often below u, quotients rising in steps at the float's resolution
          std::fill(p.begin(), p.end(), 0.25f);
          for (int64_t i = 0; i < n; ++i) u[i] = 1e-7 * (1.0 - 1e-9 * static_cast<double>(i));
          break;
        default:
          break;
      }
      const int64_t want = rng_detail::argmax_p_over_exp_ref(p.data(), u.data(), n);
      for (bool avx2 : {false, detected_simd_level() >= SimdLevel::kAvx2}) {
        ASSERT_EQ(rng_detail::argmax_p_over_exp(p.data(), u.data(), n, avx2), want)
            << "n " << n << ", trial " << trial << (avx2 ? ", avx2" : ", scalar");
        ++checked;
      }
    }
  }
  EXPECT_EQ(checked, 7 * 40 * 2);
}

// multinomial(p, 1) without replacement draws exactly exponential(n)'s uniforms and returns the
// twin's index over them; the generator ends where exponential(n) leaves it.
TEST(Rng, MultinomialOneSampleIsTheTwinOverExponentialsDraws) {
  std::mt19937 gen(9);
  std::uniform_real_distribution<float> unit(0.0f, 1.0f);
  for (int64_t n : {1, 5, 2048, 50257}) {
    std::vector<float> p(static_cast<size_t>(n));
    for (auto& x : p) x = unit(gen);
    Rng a(21), b(21), c(21);
    int64_t got = -1;
    a.multinomial(&got, p.data(), 1, n, 1, false);
    std::vector<double> u(static_cast<size_t>(n));
    b.uniform_doubles(u.data(), n);
    EXPECT_EQ(got, rng_detail::argmax_p_over_exp_ref(p.data(), u.data(), n)) << "n " << n;
    std::vector<float> q(static_cast<size_t>(n));
    c.exponential(q.data(), n, 1.0);
    EXPECT_EQ(a.random(), c.random()) << "n " << n;
  }
}

namespace {

// A 32-bit generator that gives the words it holds, in turn (std's distributions accept it).
struct ScriptedWords {
  using result_type = uint32_t;
  static constexpr uint32_t min() { return 0; }
  static constexpr uint32_t max() { return 0xffffffffu; }
  std::vector<uint32_t> words;
  size_t next = 0;
  uint32_t operator()() { return words[next++ % words.size()]; }
};

}  // namespace

TEST(TestData, UniformDrawGivesStdsBits) {
  // The tests' fast uniform_draw against std::uniform_real_distribution on the same stream.
  for (uint32_t seed : {1u, 42u, 1337u}) {
    std::mt19937 a(seed), b(seed);
    std::uniform_real_distribution<float> f(-1.0f, 1.0f);
    std::uniform_real_distribution<double> d(-0.5, 2.0);
    for (int i = 0; i < 20000; ++i) {
      ASSERT_EQ(test::uniform_draw(a, -1.0f, 1.0f), f(b)) << "seed " << seed << " draw " << i;
      ASSERT_EQ(test::uniform_draw(a, -0.5, 2.0), d(b)) << "seed " << seed << " draw " << i;
    }
  }
  // Words that round up to 1 (kept below it) and the smallest ones, where a float or double
  // that summed or divided otherwise would differ.
  for (uint32_t w : {0xffffffffu, 0xffffff80u, 0xffffff7fu, 0u, 1u, 0x80000000u}) {
    ScriptedWords a{{w, 0xffffffffu}}, b{{w, 0xffffffffu}};
    EXPECT_EQ(test::uniform_draw(a, 0.0f, 1.0f), std::uniform_real_distribution<float>(0.0f, 1.0f)(b))
        << std::hex << w;
    EXPECT_EQ(test::uniform_draw(a, 0.0, 1.0), std::uniform_real_distribution<double>(0.0, 1.0)(b))
        << std::hex << w;
  }
}

