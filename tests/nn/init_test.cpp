// init_test.cpp: nn.Linear / nn.Embedding default initialisations against PyTorch 1.13 (bit for
// bit, in construction order), plus the bounds they promise.
#include "nn/init.h"

#include <gtest/gtest.h>

#include <cmath>
#include <vector>

#include "core/check.h"
#include "core/rng_fixture_replay.h"

using namespace scratchgpt;

TEST(Init, LinearAndEmbeddingMatchTorchConstructors) {
  const auto files = rng_fixture::rng_fixtures("init_");
  ASSERT_GE(files.size(), 3u) << "missing init fixtures in " << rng_fixture::rng_fixture_dir();
  for (const auto& path : files) {
    Rng rng(1);
    const auto rep = rng_fixture::replay_rng_fixture(path, rng);
    EXPECT_GE(rep.calls, 3) << path;
    EXPECT_GE(rep.values, 18) << path;
    for (const auto& f : rep.failures) ADD_FAILURE() << f;
  }
}

TEST(Init, LinearDrawsWithinOneOverSqrtFanIn) {
  const int OC = 40, C = 50;
  std::vector<float> w(OC * C), b(OC);  // (OC, C), (OC)
  Rng rng(0);
  init_linear(rng, w.data(), b.data(), OC, C);
  const float bound = 1.0f / std::sqrt(static_cast<float>(C));
  float lo = 1, hi = -1;
  for (float v : w) lo = std::min(lo, v), hi = std::max(hi, v);
  EXPECT_GE(lo, -bound * 1.0000001f);
  EXPECT_LT(hi, bound * 1.0000001f);
  EXPECT_LT(lo, -0.9f * bound);  // actually spread over the interval
  EXPECT_GT(hi, 0.9f * bound);
  for (float v : b) EXPECT_LE(std::fabs(v), bound * 1.0000001f);
}

TEST(Init, LinearWithoutBiasDrawsOnlyTheWeight) {
  Rng a(5), b(5);
  std::vector<float> w(6 * 4), bias(6);  // (OC, C), (OC)
  init_linear(a, w.data(), nullptr, 6, 4);
  std::vector<float> u(6 * 4);
  b.rand(u.data(), 6 * 4);  // one raw draw per weight
  EXPECT_EQ(a.random(), b.random());
}

TEST(Init, EmbeddingIsStandardNormal) {
  const int V = 64, C = 128;
  std::vector<float> w(V * C);  // (V, C)
  Rng rng(42);
  init_embedding(rng, w.data(), V, C);
  double sum = 0, sq = 0;
  for (float v : w) sum += v, sq += static_cast<double>(v) * v;
  const double mean = sum / w.size(), var = sq / w.size() - mean * mean;
  EXPECT_NEAR(mean, 0.0, 0.05);
  EXPECT_NEAR(var, 1.0, 0.05);
}

TEST(Init, BadSizesAreErrors) {
  Rng rng(1);
  float w[4];
  EXPECT_THROW(init_linear(rng, w, nullptr, 0, 4), Error);
  EXPECT_THROW(init_embedding(rng, w, 2, 0), Error);
}
