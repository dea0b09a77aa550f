// ref_adamw_test.cpp: ref::adamw_update against closed forms (PyTorch's own numbers are in
// ref_pytorch_test.cpp): the first step is lr * sign(g) after decay, a zero gradient only
// decays, and float follows double over several steps.
#include <gtest/gtest.h>

#include <cmath>
#include <vector>

#include "kernels/ref/adamw.h"
#include "test_util.h"

using namespace scratchgpt;

TEST(RefAdamW, FirstStepIsDecayPlusSignedLearningRate) {
  // Step 1 from zero moments: mhat = g, vhat = g^2, so p = p (1 - lr wd) - lr g / (|g| + eps).
  const int n = 9;
  const double lr = 0.05, wd = 0.1, eps = 1e-8;
  std::vector<double> p = test::random_vector<double>(n, 1), g = test::random_vector<double>(n, 2);
  std::vector<double> m(n, 0.0), v(n, 0.0), want(n);
  for (int i = 0; i < n; ++i) want[i] = p[i] * (1 - lr * wd) - lr * g[i] / (std::fabs(g[i]) + eps);
  ref::adamw_update(p.data(), g.data(), m.data(), v.data(), n, lr, 0.9, 0.95, eps, wd, 1);
  test::expect_close(p, want, 1e-15, 1e-13, "adamw step 1");
  for (int i = 0; i < n; ++i) {
    EXPECT_NEAR(m[i], 0.1 * g[i], 1e-16);
    EXPECT_NEAR(v[i], 0.05 * g[i] * g[i], 1e-16);
  }
}

TEST(RefAdamW, ZeroGradientOnlyDecays) {
  double p = 2.0, g = 0.0, m = 0.0, v = 0.0;
  ref::adamw_update(&p, &g, &m, &v, 1, 0.01, 0.9, 0.999, 1e-8, 0.5, 3);
  EXPECT_DOUBLE_EQ(p, 2.0 * (1 - 0.01 * 0.5));
  EXPECT_EQ(m, 0.0);
  EXPECT_EQ(v, 0.0);
}

TEST(RefAdamW, FloatFollowsDoubleOverSteps) {
  const int n = 31, steps = 10;
  std::vector<double> pd = test::random_vector<double>(n, 3), md(n, 0.0), vd(n, 0.0);
  std::vector<float> pf(pd.begin(), pd.end()), mf(n, 0.0f), vf(n, 0.0f);
  for (int s = 1; s <= steps; ++s) {
    std::vector<double> gd = test::random_vector<double>(n, 100 + s);
    std::vector<float> gf(gd.begin(), gd.end());
    ref::adamw_update(pd.data(), gd.data(), md.data(), vd.data(), n, 1e-3, 0.9, 0.95, 1e-8, 0.1, s);
    ref::adamw_update(pf.data(), gf.data(), mf.data(), vf.data(), n, 1e-3f, 0.9f, 0.95f, 1e-8f,
                      0.1f, s);
  }
  test::expect_close(pf, pd, 1e-6, 1e-6, "adamw float vs double params");
  test::expect_close(mf, md, 1e-6, 1e-6, "adamw float vs double exp_avg");
}
