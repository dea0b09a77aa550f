// gpt_pytorch_test.cpp: the whole GPT against PyTorch (tests/fixtures/gpt, made by
// tools/make_gpt_fixtures.py from a nanoGPT-equivalent model evaluated in double): logits, loss,
// every parameter gradient, and the parameters after 3 AdamW steps, for the lecture's variant
// (ReLU, biases, separate lm_head) and GPT-2's (GELU, no biases, tied), at T = block_size and T <
// it.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <set>
#include <string>
#include <vector>

#include "core/rng.h"
#include "kernels/cpu/adamw.h"
#include "nn/gpt.h"
#include "test_util.h"

namespace scratchgpt {
namespace {


// Copies "param.<name>" into every Param, and checks the two name sets are the same.
void load_params(GPT& gpt, const SafeTensors& st, const std::string& prefix = "param.") {
  std::set<std::string> ours, theirs;
  for (Param& p : gpt.params()) {
    ours.insert(p.name);
    st.copy_f32(prefix + p.name, p.value.data, p.value.numel());
  }
  for (const auto& [name, t] : st.tensors)
    if (name.rfind(prefix, 0) == 0) theirs.insert(name.substr(prefix.size()));
  EXPECT_EQ(ours, theirs) << "parameter names differ from the PyTorch model's";
}

double max_abs(const std::vector<double>& v) {
  double m = 0;
  for (double x : v) m = std::max(m, std::fabs(x));
  return m;
}

// |got - want| <= tol * (max|want| + |want|): absolute error relative to the tensor's scale.
void expect_scaled_close(const float* got, const std::vector<double>& want, double tol,
                         const std::string& what) {
  const double scale = std::max(max_abs(want), 1e-30);
  test::expect_close(got, want.data(), static_cast<int64_t>(want.size()), tol * scale, tol, what);
}

// The key bias cannot change the loss (q . (k + b) shifts a whole softmax row by q . b): its exact
// gradient is 0, and the float noise left there would become +-lr AdamW steps on either side.
// The fixture zeroes it before each optimizer step; so do we, after checking it is noise-sized.
void zero_key_bias_grad(GPT& gpt) {
  const int C = gpt.config().n_embd;
  for (Param& p : gpt.params()) {
    if (p.name.find("attn.c_attn.bias") == std::string::npos) continue;
    for (int i = C; i < 2 * C; ++i) {
      EXPECT_LT(std::fabs(p.grad.data[i]), 1e-6f) << p.name << "[" << i << "]";
      p.grad.data[i] = 0.0f;
    }
  }
}

class GptPytorch : public ::testing::TestWithParam<std::string> {};
class GptPytorchAdamW : public ::testing::TestWithParam<std::string> {};

TEST_P(GptPytorch, LogitsLossAndEveryGradient) {
  const SafeTensors st = test::load_fixture("gpt/" + GetParam() + ".safetensors");
  const GPTConfig cfg = test::gpt_config_of_fixture(st);
  GPT gpt(cfg);
  load_params(gpt, st);
  const std::vector<int64_t> shape = st.shape("idx");
  const int B = static_cast<int>(shape[0]), T = static_cast<int>(shape[1]);
  const std::vector<int32_t> idx = st.i32("idx"), targets = st.i32("targets");

  gpt.zero_grad();
  const float loss = gpt.forward(idx.data(), targets.data(), B, T, nullptr);
  const double want_loss = st.f64("loss")[0];
  EXPECT_NEAR(loss, want_loss, 2e-6 * want_loss) << "loss";
  const Tensor logits = gpt.logits();
  ASSERT_EQ(logits.rank, 3);
  ASSERT_EQ(logits.size(0), B);
  ASSERT_EQ(logits.size(1), T);
  ASSERT_EQ(logits.size(2), cfg.vocab_size);
  expect_scaled_close(logits.data, st.f64("logits"), 2e-6, "logits");

  gpt.backward();
  for (Param& p : gpt.params()) {
    const std::vector<double> want = st.f64("grad." + p.name);
    ASSERT_EQ(static_cast<int64_t>(want.size()), p.grad.numel()) << p.name;
    expect_scaled_close(p.grad.data, want, 1e-5, "grad." + p.name);
  }
}

TEST_P(GptPytorchAdamW, ThreeStepsMatchTorchOptimAdamW) {
  const SafeTensors st = test::load_fixture("gpt/" + GetParam() + ".safetensors");
  GPT gpt(test::gpt_config_of_fixture(st));
  load_params(gpt, st);
  const std::vector<int64_t> shape = st.shape("idx");
  const int B = static_cast<int>(shape[0]), T = static_cast<int>(shape[1]);
  const std::vector<int32_t> idx = st.i32("idx"), targets = st.i32("targets");
  for (Param& p : gpt.params()) {
    EXPECT_EQ(p.decay, p.value.rank >= 2) << p.name << ": decay only 2-D weights (nanoGPT)";
    std::fill(p.m.begin(), p.m.end(), 0.0f);
    std::fill(p.v.begin(), p.v.end(), 0.0f);
  }
  for (int step = 1; step <= 3; ++step) {
    gpt.zero_grad();
    const float loss = gpt.forward(idx.data(), targets.data(), B, T, nullptr);
    const double want_loss = st.f64("loss_step" + std::to_string(step))[0];
    EXPECT_NEAR(loss, want_loss, 2e-6 * want_loss) << "loss before step " << step;
    gpt.backward();
    zero_key_bias_grad(gpt);
    for (Param& p : gpt.params())
      cpu::adamw_update(gpt.exec(), p.value.data, p.grad.data, p.m.data, p.v.data, p.value.numel(),
                        1e-3f, 0.9f, 0.99f, 1e-8f, p.decay ? 0.1f : 0.0f, step);
    for (Param& p : gpt.params()) {
      const std::vector<double> want = st.f64("adamw" + std::to_string(step) + "." + p.name);
      // Each step moves a weight by about lr = 1e-3; float32 storage of O(1) weights is ~6e-8.
      test::expect_close(p.value.data, want.data(), p.value.numel(), 2e-6, 1e-6,
                         "after step " + std::to_string(step) + ": " + p.name);
    }
  }
}

// Training mode: with the same seed our Rng drops exactly the elements nn.Dropout drops, in the
// same order (embeddings; per block attention weights, attention output, MLP output).
TEST(GptPytorchDropout, SeededTrainingStepMatchesNnDropout) {
  const SafeTensors st = test::load_fixture("gpt/dropout_relu_bias_T8.safetensors");
  GPTConfig cfg = test::gpt_config_of_fixture(st);
  cfg.dropout = std::stof(st.meta("dropout"));
  GPT gpt(cfg);
  load_params(gpt, st);
  const std::vector<int64_t> shape = st.shape("idx");
  const int B = static_cast<int>(shape[0]), T = static_cast<int>(shape[1]);
  const std::vector<int32_t> idx = st.i32("idx"), targets = st.i32("targets");
  Rng rng(std::stoull(st.meta("seed")));
  gpt.zero_grad();
  const float loss = gpt.forward(idx.data(), targets.data(), B, T, &rng);
  const double want_loss = st.f64("loss")[0];
  EXPECT_NEAR(loss, want_loss, 5e-6 * want_loss) << "training loss with dropout";
  expect_scaled_close(gpt.logits().data, st.f64("logits"), 5e-6, "logits with dropout");
  gpt.backward();
  for (Param& p : gpt.params())
    expect_scaled_close(p.grad.data, st.f64("grad." + p.name), 2e-5, "grad." + p.name);
  const float eval_loss = gpt.forward(idx.data(), targets.data(), B, T, nullptr);
  EXPECT_NEAR(eval_loss, st.f64("eval_loss")[0], 5e-6 * want_loss) << "eval loss";
}

// nanoGPT's init after torch.manual_seed(1337): the same weights, draw for draw.
TEST(GptPytorchInit, SeededInitMatchesNanoGpt) {
  const SafeTensors st = test::load_fixture("gpt/init_seed1337.safetensors");
  const uint64_t seed = std::stoull(st.meta("seed"));
  for (const char* variant : {"relu_bias", "gelu_tied"}) {
    SCOPED_TRACE(variant);
    GPTConfig cfg;
    cfg.vocab_size = std::stoi(st.meta("V"));
    cfg.block_size = std::stoi(st.meta("block_size"));
    cfg.n_layer = std::stoi(st.meta("n_layer"));
    cfg.n_head = std::stoi(st.meta("n_head"));
    cfg.n_embd = std::stoi(st.meta("n_embd"));
    const bool gpt2 = std::string(variant) == "gelu_tied";
    cfg.activation = gpt2 ? Activation::kGelu : Activation::kRelu;
    cfg.bias = !gpt2;
    cfg.tied = gpt2;
    GPT gpt(cfg);
    Rng rng(seed);
    gpt.init(rng);
    for (Param& p : gpt.params()) {
      const std::vector<float> want = st.f32(std::string("init_") + variant + "." + p.name);
      ASSERT_EQ(static_cast<int64_t>(want.size()), p.value.numel()) << p.name;
      test::expect_close(p.value.data, want.data(), p.value.numel(), 1e-7, 1e-6, p.name);
    }
  }
}

// medium_gelu_bias_T24 (C=72, NH=4, T=24 < block_size 32) takes the fast kernels' multi-tile paths.
INSTANTIATE_TEST_SUITE_P(Variants, GptPytorch,
                         ::testing::Values("relu_bias_T8", "relu_bias_T5", "gelu_tied_T8",
                                           "gelu_tied_T5", "medium_gelu_bias_T24",
                                           "gelu_exact_tied_T8", "gelu_exact_tied_T5"));
INSTANTIATE_TEST_SUITE_P(Variants, GptPytorchAdamW,
                         ::testing::Values("relu_bias_T8", "gelu_tied_T8", "gelu_exact_tied_T8"));

}  // namespace
}  // namespace scratchgpt
