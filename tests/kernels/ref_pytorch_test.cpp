// ref_pytorch_test.cpp: ref::<kernel><float> against PyTorch's float32 answers (forward outputs and
// autograd gradients for a given upstream gradient), loaded from tests/fixtures/kernels/, written
// by tools/make_kernel_fixtures.py. Tolerance |a - r| <= 1e-5 + 1e-5 |r|.
#include <gtest/gtest.h>

#include <cmath>
#include <string>
#include <vector>

#include "kernels/ref/adamw.h"
#include "kernels/ref/attention.h"
#include "kernels/ref/crossentropy.h"
#include "kernels/ref/dropout.h"
#include "kernels/ref/encoder.h"
#include "kernels/ref/gelu.h"
#include "kernels/ref/layernorm.h"
#include "kernels/ref/matmul.h"
#include "kernels/ref/relu.h"
#include "kernels/ref/residual.h"
#include "kernels/ref/softmax.h"
#include "test_util.h"

using namespace scratchgpt;
using scratchgpt::test::expect_close;
using Vec = std::vector<float>;

namespace {

constexpr double kTol = 1e-5;

SafeTensors load(const std::string& kernel) {
  return test::load_fixture("kernels/" + kernel + ".safetensors");
}

int dim(const SafeTensors& st, const char* name) { return std::stoi(st.meta(name, "0")); }

void check(const Vec& got, const SafeTensors& st, const std::string& name,
           const std::string& kernel) {
  expect_close(got, st.f32(name), kTol, kTol, kernel + " " + name);
}

}  // namespace

TEST(RefVsPyTorch, Encoder) {
  SafeTensors st = load("encoder");
  const int B = dim(st, "B"), T = dim(st, "T"), C = dim(st, "C"), V = dim(st, "V");
  ASSERT_EQ(st.shape("wte"), (std::vector<int64_t>{V, C}));
  auto inp = st.i32("inp");
  Vec wte = st.f32("wte"), wpe = st.f32("wpe"), dout = st.f32("dout");
  Vec out(B * T * C), dwte(V * C, 0.0f), dwpe(T * C, 0.0f);
  ref::encoder_forward(out.data(), inp.data(), wte.data(), wpe.data(), B, T, C);
  ref::encoder_backward(dwte.data(), dwpe.data(), dout.data(), inp.data(), B, T, C);
  check(out, st, "out", "encoder");
  check(dwte, st, "dwte", "encoder");
  check(dwpe, st, "dwpe", "encoder");
  std::fill(dwte.begin(), dwte.end(), 0.0f);
  ref::encoder_forward(out.data(), inp.data(), wte.data(), static_cast<const float*>(nullptr), B, T,
                       C);
  ref::encoder_backward(dwte.data(), static_cast<float*>(nullptr), dout.data(), inp.data(), B, T,
                        C);
  check(out, st, "out_nowpe", "encoder");
  check(dwte, st, "dwte_nowpe", "encoder");
}

TEST(RefVsPyTorch, Matmul) {
  SafeTensors st = load("matmul");
  const int N = dim(st, "B") * dim(st, "T"), C = dim(st, "C"), OC = dim(st, "OC");
  ASSERT_EQ(st.shape("weight"), (std::vector<int64_t>{OC, C}));
  Vec inp = st.f32("inp"), w = st.f32("weight"), bias = st.f32("bias"), dout = st.f32("dout");
  Vec out(N * OC), dinp(N * C, 0.0f), dw(OC * C, 0.0f), db(OC, 0.0f);
  ref::matmul_forward(out.data(), inp.data(), w.data(), bias.data(), N, C, OC);
  check(out, st, "out", "matmul");
  ref::matmul_forward(out.data(), inp.data(), w.data(), static_cast<const float*>(nullptr), N, C,
                      OC);
  check(out, st, "out_nobias", "matmul");
  ref::matmul_backward(dinp.data(), dw.data(), db.data(), dout.data(), inp.data(), w.data(), N, C,
                       OC);
  check(dinp, st, "dinp", "matmul");
  check(dw, st, "dweight", "matmul");
  check(db, st, "dbias", "matmul");
}

TEST(RefVsPyTorch, LayerNorm) {
  SafeTensors st = load("layernorm");
  const int N = dim(st, "B") * dim(st, "T"), C = dim(st, "C");
  Vec inp = st.f32("inp"), w = st.f32("weight"), bias = st.f32("bias"), dout = st.f32("dout");
  Vec out(N * C), mean(N), rstd(N), dinp(N * C, 0.0f), dw(C, 0.0f), db(C, 0.0f);
  ref::layernorm_forward(out.data(), mean.data(), rstd.data(), inp.data(), w.data(), bias.data(), N,
                         C);
  check(out, st, "out", "layernorm");
  check(mean, st, "mean", "layernorm");
  check(rstd, st, "rstd", "layernorm");
  ref::layernorm_backward(dinp.data(), dw.data(), db.data(), dout.data(), inp.data(), w.data(),
                          mean.data(), rstd.data(), N, C);
  check(dinp, st, "dinp", "layernorm");
  check(dw, st, "dweight", "layernorm");
  check(db, st, "dbias", "layernorm");
  // Bias-free LayerNorm (nanoGPT bias=False): null bias and null dbias.
  std::fill(dinp.begin(), dinp.end(), 0.0f);
  std::fill(dw.begin(), dw.end(), 0.0f);
  ref::layernorm_forward(out.data(), mean.data(), rstd.data(), inp.data(), w.data(),
                         static_cast<const float*>(nullptr), N, C);
  check(out, st, "out_nobias", "layernorm");
  ref::layernorm_backward(dinp.data(), dw.data(), static_cast<float*>(nullptr), dout.data(),
                          inp.data(), w.data(), mean.data(), rstd.data(), N, C);
  check(dinp, st, "dinp_nobias", "layernorm");
  check(dw, st, "dweight_nobias", "layernorm");
}

// An elementwise activation against its fixture (inp, dout -> out, dinp); returns out.
using ActForward = void (*)(float*, const float*, int64_t);
using ActBackward = void (*)(float*, const float*, const float*, int64_t);
Vec check_activation(const std::string& name, ActForward forward, ActBackward backward) {
  SafeTensors st = load(name);
  Vec inp = st.f32("inp"), dout = st.f32("dout");
  const int64_t n = static_cast<int64_t>(inp.size());
  Vec out(n), dinp(n, 0.0f);
  forward(out.data(), inp.data(), n);
  backward(dinp.data(), inp.data(), dout.data(), n);
  check(out, st, "out", name);
  check(dinp, st, "dinp", name);
  return out;
}

TEST(RefVsPyTorch, Relu) {
  check_activation("relu", ref::relu_forward<float>, ref::relu_backward<float>);
}

TEST(RefVsPyTorch, Gelu) {
  check_activation("gelu", ref::gelu_forward<float>, ref::gelu_backward<float>);
}

TEST(RefVsPyTorch, GeluExact) {
  const Vec out =
      check_activation("gelu_exact", ref::gelu_exact_forward<float>, ref::gelu_exact_backward<float>);
  // The two GELUs differ by up to ~5e-4 here: the fixture tells them apart.
  const Vec inp = load("gelu_exact").f32("inp");
  const int64_t n = static_cast<int64_t>(inp.size());
  Vec tanh_out(n);
  ref::gelu_forward(tanh_out.data(), inp.data(), n);
  float most = 0;
  for (int64_t i = 0; i < n; ++i) most = std::max(most, std::abs(tanh_out[i] - out[i]));
  EXPECT_GT(most, 1e-4f);
}

TEST(RefVsPyTorch, Softmax) {
  SafeTensors st = load("softmax");
  const int N = dim(st, "B") * dim(st, "T"), C = dim(st, "C");
  Vec inp = st.f32("inp"), dout = st.f32("dout");
  int masked = 0;
  for (float x : inp) masked += std::isinf(x);
  ASSERT_GT(masked, 0) << "the fixture should contain masked (-inf) entries";
  Vec out(N * C), dinp(N * C, 0.0f);
  ref::softmax_forward(out.data(), inp.data(), N, C);
  ref::softmax_backward(dinp.data(), dout.data(), out.data(), N, C);
  check(out, st, "out", "softmax");
  check(dinp, st, "dinp", "softmax");
}

TEST(RefVsPyTorch, Residual) {
  SafeTensors st = load("residual");
  Vec a = st.f32("a"), b = st.f32("b"), dout = st.f32("dout");
  const int64_t n = static_cast<int64_t>(a.size());
  Vec out(n), da(n, 0.0f), db(n, 0.0f);
  ref::residual_forward(out.data(), a.data(), b.data(), n);
  ref::residual_backward(da.data(), db.data(), dout.data(), n);
  check(out, st, "out", "residual");
  check(da, st, "da", "residual");
  check(db, st, "db", "residual");
}

TEST(RefVsPyTorch, Dropout) {
  SafeTensors st = load("dropout");
  Vec inp = st.f32("inp"), mask = st.f32("keep"), dout = st.f32("dout");
  const float p = static_cast<float>(st.f64("p").at(0));
  const int64_t n = static_cast<int64_t>(inp.size());
  Vec out(n), dinp(n, 0.0f);
  ref::dropout_forward(out.data(), mask.data(), inp.data(), n, p);
  ref::dropout_backward(dinp.data(), dout.data(), mask.data(), n);
  check(out, st, "out", "dropout");
  check(dinp, st, "dinp", "dropout");
}

TEST(RefVsPyTorch, Attention) {
  SafeTensors st = load("attention");
  const int B = dim(st, "B"), T = dim(st, "T"), C = dim(st, "C"), NH = dim(st, "NH");
  ASSERT_EQ(st.shape("qkv"), (std::vector<int64_t>{B, T, 3 * C}));
  ASSERT_EQ(st.shape("att"), (std::vector<int64_t>{B, NH, T, T}));
  Vec qkv = st.f32("qkv"), dout = st.f32("dout"), drop = st.f32("drop");
  const int64_t natt = static_cast<int64_t>(B) * NH * T * T;
  Vec out(B * T * C), preatt(natt), att(natt), dpreatt(natt), datt(natt), dqkv(qkv.size(), 0.0f);
  ref::attention_forward(out.data(), preatt.data(), att.data(), qkv.data(),
                         static_cast<const float*>(nullptr), B, T, C, NH);
  check(out, st, "out", "attention");
  check(preatt, st, "preatt", "attention");  // -inf above the diagonal on both sides
  check(att, st, "att", "attention");
  ref::attention_backward(dqkv.data(), dpreatt.data(), datt.data(), dout.data(), qkv.data(),
                          att.data(), static_cast<const float*>(nullptr), B, T, C, NH);
  check(dqkv, st, "dqkv", "attention");
  // The same with a fixed dropout mask on the attention weights.
  std::fill(dqkv.begin(), dqkv.end(), 0.0f);
  ref::attention_forward(out.data(), preatt.data(), att.data(), qkv.data(), drop.data(), B, T, C,
                         NH);
  check(out, st, "out_drop", "attention");
  check(att, st, "att", "attention");  // the saved weights are before dropout
  ref::attention_backward(dqkv.data(), dpreatt.data(), datt.data(), dout.data(), qkv.data(),
                          att.data(), drop.data(), B, T, C, NH);
  check(dqkv, st, "dqkv_drop", "attention");
}

TEST(RefVsPyTorch, CrossEntropy) {
  SafeTensors st = load("crossentropy");
  const int N = dim(st, "B") * dim(st, "T"), V = dim(st, "V");
  Vec logits = st.f32("logits"), dlosses = st.f32("dlosses");
  auto targets = st.i32("targets");
  Vec losses(N), probs(N * V), dlogits(N * V, 0.0f);
  ref::crossentropy_forward(losses.data(), probs.data(), logits.data(), targets.data(), N, V);
  check(losses, st, "losses", "crossentropy");
  check(probs, st, "probs", "crossentropy");
  double mean = 0;
  for (float l : losses) mean += l;
  mean /= N;
  Vec mean_loss = {static_cast<float>(mean)};
  check(mean_loss, st, "loss", "crossentropy");
  // F.cross_entropy (mean): the upstream gradient of each row's loss is 1/N.
  Vec inv_n(N, 1.0f / static_cast<float>(N));
  ref::crossentropy_backward(dlogits.data(), probs.data(), targets.data(), inv_n.data(), N, V);
  check(dlogits, st, "dlogits", "crossentropy");
  std::fill(dlogits.begin(), dlogits.end(), 0.0f);
  ref::crossentropy_backward(dlogits.data(), probs.data(), targets.data(), dlosses.data(), N, V);
  check(dlogits, st, "dlogits_rows", "crossentropy");
}

TEST(RefVsPyTorch, AdamW) {
  SafeTensors st = load("adamw");
  auto hyper = st.f64("hyper");  // lr, beta1, beta2, eps, weight_decay
  ASSERT_EQ(hyper.size(), 5u);
  const float lr = static_cast<float>(hyper[0]), b1 = static_cast<float>(hyper[1]);
  const float b2 = static_cast<float>(hyper[2]), eps = static_cast<float>(hyper[3]);
  const float wd = static_cast<float>(hyper[4]);
  Vec param = st.f32("param0"), grads = st.f32("grads"), want = st.f32("params");
  const int64_t n = static_cast<int64_t>(param.size());
  const int steps = static_cast<int>(st.shape("grads")[0]);
  ASSERT_EQ(static_cast<int64_t>(grads.size()), steps * n);
  Vec m(n, 0.0f), v(n, 0.0f);
  for (int s = 0; s < steps; ++s) {
    ref::adamw_update(param.data(), grads.data() + s * n, m.data(), v.data(), n, lr, b1, b2, eps,
                      wd, s + 1);
    expect_close(param.data(), want.data() + s * n, n, kTol, kTol,
                 "adamw params after step " + std::to_string(s + 1));
  }
  check(m, st, "exp_avg", "adamw");
  check(v, st, "exp_avg_sq", "adamw");
}
