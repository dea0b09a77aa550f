// gpt_modules_test.cpp: the GPT's small modules on their own: Dropout (eval is the identity and
// draws nothing; training keeps 1-p of the elements scaled by 1/(1-p), with nn.Dropout's noise),
// bias-free Linear and LayerNorm equal their biased forms with a zero bias, and a Block whose two
// output projections are zero is the identity (the residual stream passes through).
#include <gtest/gtest.h>

#include <cmath>
#include <string>
#include <vector>

#include "core/arena.h"
#include "core/exec_context.h"
#include "core/rng.h"
#include "nn/block.h"
#include "nn/dropout.h"
#include "nn/layernorm.h"
#include "nn/linear.h"
#include "test_util.h"

namespace scratchgpt {
namespace {

const ExecContext ex;  // the engine modules' kernels: the default pool and level

void fill(const Tensor& t, uint32_t seed, double lo = -1.0, double hi = 1.0) {
  const std::vector<float> r = test::random_vector<float>(t.numel(), seed, lo, hi);
  std::copy(r.begin(), r.end(), t.data);
}

TEST(GptModules, DropoutEvalIsIdentityTrainingMatchesNnDropoutNoise) {
  const int64_t n = 100000;
  const float p = 0.25f;
  Arena arena(2 * Arena::round_up(n) + 16);
  SlabPlanner plan(arena.base(), 0);
  Dropout drop(p);
  drop.plan(plan, plan, n);
  const std::vector<float> x = test::random_vector<float>(n, 1, 0.5, 1.5);

  Rng rng(7);
  const std::vector<uint8_t> state = rng.get_state();
  EXPECT_EQ(drop.forward(ex, x.data(), n, nullptr), x.data()) << "eval returns its input";
  EXPECT_EQ(drop.draw_mask(n, nullptr), nullptr);
  EXPECT_EQ(rng.get_state(), state);

  const float* y = drop.forward(ex, x.data(), n, &rng);
  std::vector<float> noise(n);
  Rng twin(7);
  twin.dropout_noise(noise.data(), n, p);  // what nn.Dropout(p) multiplies by
  int64_t kept = 0;
  for (int64_t i = 0; i < n; ++i) {
    ASSERT_EQ(y[i], x[i] * noise[i]) << i;
    ASSERT_TRUE(y[i] == 0.0f || std::fabs(y[i] - x[i] / (1.0f - p)) <= 1e-6f * y[i]) << i;
    kept += y[i] != 0.0f;
  }
  EXPECT_NEAR(static_cast<double>(kept) / n, 1.0 - p, 0.01);

  // backward: dout * mask
  std::vector<float> dout = test::random_vector<float>(n, 2), scratch(n);
  const float* dx = drop.backward(ex, scratch.data(), dout.data());
  for (int64_t i = 0; i < n; ++i) ASSERT_EQ(dx[i], dout[i] * noise[i]) << i;
  // draw_mask gives the scaled noise itself
  Rng a(9), b(9);
  const float* m = drop.draw_mask(n, &a);
  b.dropout_noise(noise.data(), n, p);
  for (int64_t i = 0; i < n; ++i) ASSERT_EQ(m[i], noise[i]) << i;
}

TEST(GptModules, BiasFreeLinearAndLayerNormEqualZeroBias) {
  const int N = 7, C = 24, OC = 10;
  for (bool layernorm : {false, true}) {
    SCOPED_TRACE(layernorm ? "LayerNorm" : "Linear");
    ParamStore pw, pwo;
    Linear lin_b(C, OC, true), lin_n(C, OC, false);
    LayerNorm ln_b(C, true), ln_n(C, false);
    if (layernorm) {
      pw.build([&](ParamVisitor& v) { ln_b.visit_params("m", v); });
      pwo.build([&](ParamVisitor& v) { ln_n.visit_params("m", v); });
    } else {
      pw.build([&](ParamVisitor& v) { lin_b.visit_params("m", v); });
      pwo.build([&](ParamVisitor& v) { lin_n.visit_params("m", v); });
    }
    EXPECT_NE(pw.find("m.bias"), nullptr);
    EXPECT_EQ(pwo.find("m.bias"), nullptr);
    fill(pw.get("m.weight").value, 3, 0.5, 1.5);
    std::copy(pw.get("m.weight").value.begin(), pw.get("m.weight").value.end(),
              pwo.get("m.weight").value.data);
    const int out_c = layernorm ? C : OC;
    Arena arena(4 * Arena::round_up(static_cast<size_t>(N) * (C + OC)));
    SlabPlanner plan(arena.base(), 0);
    if (layernorm) {
      ln_b.plan(plan, N);
      ln_n.plan(plan, N);
    } else {
      lin_b.plan(plan, N);
      lin_n.plan(plan, N);
    }
    const std::vector<float> x = test::random_vector<float>(N * C, 4);
    const float* yb = layernorm ? ln_b.forward(ex, x.data(), N) : lin_b.forward(ex, x.data(), N);
    const float* yn = layernorm ? ln_n.forward(ex, x.data(), N) : lin_n.forward(ex, x.data(), N);
    test::expect_close(yn, yb, N * out_c, 0, 0, "forward");
    const std::vector<float> dout = test::random_vector<float>(N * out_c, 5);
    std::vector<float> dxb(N * C, 0.0f), dxn(N * C, 0.0f);
    if (layernorm) {
      ln_b.backward(ex, dxb.data(), dout.data());
      ln_n.backward(ex, dxn.data(), dout.data());
    } else {
      lin_b.backward(ex, dxb.data(), dout.data());
      lin_n.backward(ex, dxn.data(), dout.data());
    }
    test::expect_close(dxn, dxb, 0, 0, "dx");
    const Tensor gw = pw.get("m.weight").grad, gwo = pwo.get("m.weight").grad;
    test::expect_close(gwo.data, gw.data, gw.numel(), 0, 0, "dweight");
  }
}

TEST(GptModules, BlockWithZeroOutputProjectionsIsTheIdentity) {
  GPTConfig cfg;
  cfg.vocab_size = 5;
  cfg.block_size = 6;
  cfg.n_layer = 1;
  cfg.n_head = 2;
  cfg.n_embd = 8;
  cfg.activation = Activation::kGelu;
  const int B = 2, T = 6, C = cfg.n_embd;
  Block block(cfg);
  ParamStore params;
  params.build([&](ParamVisitor& v) { block.visit_params("b", v); });
  uint32_t seed = 10;
  for (Param& p : params.params())
    if (p.name.find("c_proj") == std::string::npos) fill(p.value, seed++);  // c_proj stays 0
  SlabPlanner count_acts, count_scratch;
  block.plan(count_acts, count_scratch, B, T);
  Arena acts(count_acts.used()), scratch(count_scratch.used());
  SlabPlanner plan_acts(acts.base(), 0), plan_scratch(scratch.base(), 0);
  block.plan(plan_acts, plan_scratch, B, T);
  const std::vector<float> x = test::random_vector<float>(B * T * C, 20);
  const float* y = block.forward(ex, x.data(), B, T, nullptr);
  test::expect_close(y, x.data(), B * T * C, 0, 0, "x + attn(ln_1(x)) + mlp(...) with zero c_proj");
  // ... and its gradient is the identity too: dx = dout.
  const std::vector<float> dout = test::random_vector<float>(B * T * C, 21);
  std::vector<float> dx(B * T * C, 0.0f);
  block.backward(ex, dx.data(), dout.data());
  test::expect_close(dx, dout, 0, 0, "dx");
  // while the zero projections still get a gradient (their input is not zero)
  double g = 0;
  for (float v : params.get("b.attn.c_proj.weight").grad) g += std::fabs(v);
  EXPECT_GT(g, 0.0);
}

}  // namespace
}  // namespace scratchgpt
