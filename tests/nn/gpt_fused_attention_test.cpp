// gpt_fused_attention_test.cpp: the GPT with the fused attention kernel (cpu::flash_attention_*)
// gives the loss and every gradient of the GPT with the stored kernel (cpu::attention_*, the one
// gpt_pytorch_test checks against PyTorch), in training and eval; dropout on the weights keeps
// the stored kernel; with dropout 0 no (B, NH, T, T) buffer is planned; --dtype bf16 takes it too;
// steps are bitwise equal for 1 and 2 threads; later tokens never change earlier logits.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include "core/rng.h"
#include "core/thread_pool.h"
#include "nn/causal_self_attention.h"
#include "nn/gpt.h"
#include "nn/slab_planner.h"
#include "test_util.h"

namespace scratchgpt {
namespace {

GPTConfig tiny_config(float dropout) {
  GPTConfig c;
  c.vocab_size = 29;
  c.block_size = 40;
  c.n_layer = 2;
  c.n_head = 2;
  c.n_embd = 64;  // HS = 32
  c.dropout = dropout;
  c.activation = Activation::kGelu;
  return c;
}

// Weights large enough that attention is far from uniform (nanoGPT's 0.02 init is not).
void randomize(GPT& gpt, uint64_t seed) {
  Rng rng(seed);
  for (Param& p : gpt.params()) {
    const bool ln_weight =
        p.name.find("ln") != std::string::npos && p.name.find("weight") != std::string::npos;
    if (p.value.rank == 2)
      rng.normal(p.value.data, p.value.numel(), 0.0, 1.0 / std::sqrt(double(p.value.size(1))));
    else
      rng.normal(p.value.data, p.value.numel(), ln_weight ? 1.0 : 0.0, 0.1);
  }
}

std::vector<int32_t> tokens(int n, int V, uint64_t seed) {
  Rng rng(seed);
  std::vector<int64_t> r(static_cast<size_t>(n));
  rng.randint(r.data(), n, 0, V);
  return std::vector<int32_t>(r.begin(), r.end());
}

struct Result {
  float loss = 0;
  std::vector<float> logits, grads;
  bool fused = false;
};

// One forward and backward of a freshly built model; fused_min_T picks the attention kernel.
Result run(int fused_min_T, float dropout, bool train, int B, int T, int threads = 0,
           Dtype dtype = Dtype::kFp32) {
  test::OwnExec exec(threads);
  ExecContext& ctx = exec.ctx;
  ctx.fused_attention_min_T = fused_min_T;
  ctx.dtype = dtype;
  GPT gpt(tiny_config(dropout), ctx);
  randomize(gpt, 5);
  const auto idx = tokens(B * T, 29, 6), tgt = tokens(B * T, 29, 7);
  Rng drop_rng(8);
  Result r;
  gpt.zero_grad();
  r.loss = gpt.forward(idx.data(), tgt.data(), B, T, train ? &drop_rng : nullptr);
  gpt.backward();
  const Tensor lg = gpt.logits();
  r.logits.assign(lg.data, lg.data + lg.numel());
  for (Param& p : gpt.params())
    r.grads.insert(r.grads.end(), p.grad.data, p.grad.data + p.grad.numel());
  r.fused = gpt.attention_weights(0) == nullptr;  // none kept: the fused kernel ran
  return r;
}

double max_abs_diff(const std::vector<float>& a, const std::vector<float>& b) {
  double m = 0;
  for (size_t i = 0; i < a.size(); ++i) m = std::max(m, std::fabs(double(a[i]) - b[i]));
  return m;
}

constexpr int kStored = 1 << 30, kFused = 1;

TEST(GptFusedAttention, SameLossAndGradientsAsStoredKernel) {
  for (int T : {1, 17, 40}) {
    SCOPED_TRACE("T=" + std::to_string(T));
    const Result s = run(kStored, 0.0f, true, 3, T);
    const Result f = run(kFused, 0.0f, true, 3, T);
    EXPECT_NEAR(f.loss, s.loss, 1e-5 * std::fabs(s.loss));
    test::expect_close(f.logits, s.logits, 1e-4, 1e-4, "logits");
    test::expect_close(f.grads, s.grads, 1e-5, 1e-3, "grads");
  }
}

// --dtype bf16 takes the fused kernel too (from fused_min_T, as fp32), rounding its products'
// inputs: its loss and gradients near the stored bf16 kernel's (the two round the forward's
// weights at different points, so not its bits), and both far from fp32's.
TEST(GptFusedAttention, Bf16TakesTheFusedKernelNearTheStoredOne) {
  const int B = 3, T = 40;
  const Result s = run(kStored, 0.0f, true, B, T, 0, Dtype::kBf16);
  const Result f = run(kFused, 0.0f, true, B, T, 0, Dtype::kBf16);
  const Result f32 = run(kFused, 0.0f, true, B, T, 0, Dtype::kFp32);
  EXPECT_FALSE(s.fused);
  EXPECT_TRUE(f.fused);
  // bf16's rounding (u = 2^-9) moves the loss by about 2.4e-4 relative here (fused against
  // fp32) and the gradients by up to 1.6e-3 (their largest is 0.14); fused and stored bf16
  // differ by 1.0e-4 and 8e-4. A kernel that scaled or rounded a gradient wrongly would be off
  // by far more.
  EXPECT_NEAR(f.loss, s.loss, 1e-3 * std::fabs(s.loss));
  EXPECT_LE(max_abs_diff(f.grads, s.grads), 4e-3);
  EXPECT_LE(max_abs_diff(f.logits, s.logits), 0.1);
  EXPECT_NE(f.loss, f32.loss);  // it does round
  // 1 and 2 threads: the same bits.
  const Result two = run(kFused, 0.0f, true, B, T, 2, Dtype::kBf16);
  const Result one = run(kFused, 0.0f, true, B, T, 1, Dtype::kBf16);
  EXPECT_EQ(one.loss, two.loss);
  EXPECT_EQ(one.grads, two.grads);
}

// Eval mode with dropout > 0 in the config: the weights are not dropped, so fused is allowed.
TEST(GptFusedAttention, EvalWithDropoutConfigMatchesStored) {
  const Result s = run(kStored, 0.2f, false, 2, 33);
  const Result f = run(kFused, 0.2f, false, 2, 33);
  EXPECT_NEAR(f.loss, s.loss, 1e-5 * std::fabs(s.loss));
  test::expect_close(f.grads, s.grads, 1e-5, 1e-3, "grads");
}

// Training with dropout > 0 must keep the stored kernel (it drops the stored weights), so the
// fused threshold changes nothing, bit for bit.
TEST(GptFusedAttention, TrainingWithDropoutKeepsStoredKernel) {
  const Result s = run(kStored, 0.2f, true, 2, 33);
  const Result f = run(kFused, 0.2f, true, 2, 33);
  EXPECT_EQ(f.loss, s.loss);
  EXPECT_EQ(f.grads, s.grads);
}

TEST(GptFusedAttention, PlanSkipsTxTWeightsOnlyWhenNoForwardNeedsThem) {
  const int B = 2, T = 64, NH = 4, C = 64;
  const size_t A = Arena::round_up(size_t(B) * NH * T * T);
  auto planned = [&](int min_T, float dropout) {
    CausalSelfAttention attn(C, NH, true, dropout);
    attn.fused_min_T = min_T;
    SlabPlanner acts, scratch;
    attn.plan(acts, scratch, B, T);
    return std::pair<size_t, size_t>(acts.used(), scratch.used());
  };
  const auto stored = planned(T + 1, 0.0f), fused = planned(T, 0.0f);
  EXPECT_EQ(stored.first - fused.first, A);  // att
  // The scores and their gradients are held a head at a time by the kernel: no T x T scratch.
  EXPECT_EQ(stored.second, fused.second);
  // Dropout needs att, plus the weights' mask (acts) and the residual dropout's mask (acts) and
  // output (scratch), (B, T, C) each.
  const size_t BTC = Arena::round_up(size_t(B) * T * C);
  const auto with_dropout = planned(T, 0.1f);
  EXPECT_EQ(with_dropout.first, stored.first + A + BTC);
  EXPECT_EQ(with_dropout.second, stored.second + BTC);
}

TEST(GptFusedAttention, OneAndTwoThreadsBitIdenticalAndCausal) {
  const Result one = run(kFused, 0.0f, true, 2, 40, 1);
  const Result two = run(kFused, 0.0f, true, 2, 40, 2);
  EXPECT_EQ(one.loss, two.loss);
  EXPECT_EQ(one.grads, two.grads);
  EXPECT_EQ(one.logits, two.logits);

  // Causality: change the tokens after position t; logits up to t stay bit-identical.
  ExecContext ctx;
  ctx.fused_attention_min_T = kFused;
  GPT gpt(tiny_config(0.0f), ctx);
  randomize(gpt, 5);
  const int T = 40, t = 22, V = 29;
  auto idx = tokens(T, V, 6);
  gpt.forward(idx.data(), nullptr, 1, T, nullptr);
  const Tensor a = gpt.logits();
  const std::vector<float> first(a.data, a.data + a.numel());
  for (int i = t + 1; i < T; ++i) idx[i] = (idx[i] + 1) % V;
  gpt.forward(idx.data(), nullptr, 1, T, nullptr);
  const Tensor b = gpt.logits();
  const std::vector<float> second(b.data, b.data + b.numel());
  EXPECT_TRUE(std::equal(first.begin(), first.begin() + (t + 1) * V, second.begin()));
  EXPECT_FALSE(std::equal(first.begin(), first.end(), second.begin()));
}

}  // namespace
}  // namespace scratchgpt
