// optimizer_test.cpp: global-norm clipping against a direct computation of torch's
// clip_grad_norm_, gradient scaling, and AdamW applying weight decay only where Param::decay.
#include "train/optimizer.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstring>

#include "core/arena.h"
#include "core/thread_pool.h"
#include "test_util.h"

using namespace scratchgpt;

namespace {

struct TwoParams {
  Arena arena{1024};
  std::vector<Param> params;
  TwoParams() {
    for (int k = 0; k < 2; ++k) {
      Param p;
      p.name = std::string(1, k == 0 ? 'w' : 'b');
      const int64_t n = k == 0 ? 6 : 3;
      p.value = arena.tensor({n});
      p.grad = arena.tensor({n});
      p.m = arena.tensor({n});
      p.v = arena.tensor({n});
      p.decay = k == 0;
      for (int64_t i = 0; i < n; ++i) {
        p.value.data[i] = 0.5f + 0.1f * static_cast<float>(i);
        p.grad.data[i] = (k == 0 ? 1.0f : -2.0f) * static_cast<float>(i + 1);
      }
      params.push_back(p);
    }
  }
};

}  // namespace

TEST(ClipGradNorm, MatchesDirectComputation) {
  TwoParams t;
  // Direct: grads are 1..6 and -2,-4,-6: sum of squares 91 + 56 = 147.
  const double norm = std::sqrt(147.0);
  EXPECT_NEAR(grad_global_norm(ExecContext(), t.params), norm, 1e-12);
  const double returned = clip_grad_norm(ExecContext(), t.params, 1.0);
  EXPECT_NEAR(returned, norm, 1e-12);
  const double coef = 1.0 / (norm + 1e-6);  // torch: max_norm / (total_norm + 1e-6)
  for (int64_t i = 0; i < 6; ++i)
    EXPECT_FLOAT_EQ(t.params[0].grad.data[i], static_cast<float>((i + 1) * coef));
  for (int64_t i = 0; i < 3; ++i)
    EXPECT_FLOAT_EQ(t.params[1].grad.data[i], static_cast<float>(-2.0 * (i + 1) * coef));
  EXPECT_NEAR(grad_global_norm(ExecContext(), t.params), 1.0, 1e-5);
}

TEST(ClipGradNorm, LeavesSmallGradientsAlone) {
  TwoParams t;
  clip_grad_norm(ExecContext(), t.params, 100.0);
  for (int64_t i = 0; i < 6; ++i) EXPECT_EQ(t.params[0].grad.data[i], static_cast<float>(i + 1));
  clip_grad_norm(ExecContext(), t.params, 0.0);  // disabled: only measures
  EXPECT_EQ(t.params[1].grad.data[2], -6.0f);
}

TEST(AdamWStep, DecaysOnlyDecayParams) {
  TwoParams t;
  AdamWConfig cfg;
  cfg.weight_decay = 0.1f, cfg.beta1 = 0.9f, cfg.beta2 = 0.99f, cfg.eps = 1e-8f;
  const float lr = 1e-2f;
  std::vector<float> w0(t.params[0].value.begin(), t.params[0].value.end());
  std::vector<float> b0(t.params[1].value.begin(), t.params[1].value.end());
  adamw_step(ExecContext(), t.params, lr, cfg, 1);
  // Step 1: m_hat = g, v_hat = g^2, so the update is lr * g / (|g| + eps) = lr * sign(g).
  for (int64_t i = 0; i < 6; ++i)
    EXPECT_NEAR(t.params[0].value.data[i], w0[i] * (1 - lr * 0.1f) - lr, 1e-6);
  for (int64_t i = 0; i < 3; ++i) EXPECT_NEAR(t.params[1].value.data[i], b0[i] + lr, 1e-6);
}

TEST(ScaleGrads, MultipliesEveryGradient) {
  TwoParams t;
  scale_grads(ExecContext(), t.params, 0.25f);
  EXPECT_EQ(t.params[0].grad.data[3], 1.0f);
  EXPECT_EQ(t.params[1].grad.data[1], -1.0f);
}

namespace {

// Params of awkward sizes (several norm pieces, vector tails) with gradients large enough to clip.
struct ManyParams {
  Arena arena{1 << 22};
  std::vector<Param> params;
  explicit ManyParams(float grad_size) {
    const int64_t sizes[] = {40000, 3, 16384, 65, 100001};
    for (int k = 0; k < 5; ++k) {
      Param p;
      p.name = std::string(1, static_cast<char>('a' + k));
      p.value = arena.tensor({sizes[k]});
      p.grad = arena.tensor({sizes[k]});
      p.m = arena.tensor({sizes[k]});
      p.v = arena.tensor({sizes[k]});
      p.decay = k % 2 == 0;
      for (int64_t i = 0; i < sizes[k]; ++i) {
        p.value.data[i] = std::sin(0.1f * static_cast<float>(i + k));
        p.m.data[i] = 0.0f;
        p.v.data[i] = 0.0f;
      }
      params.push_back(p);
    }
    reset_grads(grad_size);
  }
  // Gradients are recomputed every step in training; here they are put back to step 1's.
  void reset_grads(float grad_size) {
    for (int k = 0; k < 5; ++k)
      for (int64_t i = 0; i < params[k].grad.numel(); ++i)
        params[k].grad.data[i] =
            grad_size * std::cos(0.37f * static_cast<float>(i) + static_cast<float>(k));
  }
  std::vector<float> values() const {
    std::vector<float> out;
    for (const Param& p : params) out.insert(out.end(), p.value.begin(), p.value.end());
    for (const Param& p : params) out.insert(out.end(), p.m.begin(), p.m.end());
    for (const Param& p : params) out.insert(out.end(), p.v.begin(), p.v.end());
    return out;
  }
};

}  // namespace

// The fused step (norm pass, then AdamW with the clip coefficient inside) leaves the same
// parameters and moments, bit for bit, as clip_grad_norm followed by adamw_step; with clipping
// active (large gradients) and inactive (small ones).
TEST(OptimizerStep, EqualsClipThenAdamWBitForBit) {
  AdamWConfig cfg;
  cfg.grad_clip = 1.0f, cfg.weight_decay = 0.1f, cfg.beta2 = 0.99f;
  for (float grad_size : {1.0f, 1e-4f}) {
    ManyParams fused(grad_size), plain(grad_size);
    for (int t = 1; t <= 3; ++t) {
      fused.reset_grads(grad_size);
      plain.reset_grads(grad_size);
      const double n1 = optimizer_step(ExecContext(), fused.params, 1e-3f, cfg, t);
      const double n2 = clip_grad_norm(ExecContext(), plain.params, cfg.grad_clip);
      adamw_step(ExecContext(), plain.params, 1e-3f, cfg, t);
      EXPECT_EQ(n1, n2);
    }
    const auto a = fused.values(), b = plain.values();
    ASSERT_EQ(a.size(), b.size());
    EXPECT_EQ(0, std::memcmp(a.data(), b.data(), a.size() * sizeof(float))) << grad_size;
  }
}

// The threaded norm adds fixed pieces in a fixed order: 1, 2 and 3 threads give the same bits,
// and it agrees with a plain double sum to rounding.
TEST(GradGlobalNorm, SameWithAnyThreadCountAndCloseToDirectSum) {
  ManyParams t(1.0f);
  double direct = 0;
  for (const Param& p : t.params)
    for (float g : p.grad) direct += static_cast<double>(g) * g;
  direct = std::sqrt(direct);
  const double one = grad_global_norm(test::OwnExec(1).ctx, t.params);
  const double two = grad_global_norm(test::OwnExec(2).ctx, t.params);
  const double three = grad_global_norm(test::OwnExec(3).ctx, t.params);
  EXPECT_EQ(one, two);
  EXPECT_EQ(one, three);
  EXPECT_NEAR(one, direct, 1e-12 * direct);
}
