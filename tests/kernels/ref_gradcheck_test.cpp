// ref_gradcheck_test.cpp: every ref:: backward kernel against numerical derivatives, in double.
// The loss is L = sum(out * R) with a random R, so every output element matters; the numerical
// derivative is the 5-point central difference (-L(x+2h) + 8L(x+h) - 8L(x-h) + L(x-2h)) / 12h,
// whose error is O(h^4). Gradient buffers start non-zero so the checks also prove that backward
// ACCUMULATES (+=) rather than overwrites.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <functional>
#include <limits>
#include <sstream>
#include <string>
#include <vector>

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
using scratchgpt::test::numeric_grad;
using scratchgpt::test::random_vector;
using Vec = std::vector<double>;

namespace {

// Relative error |a - n| / max(|a| + |n|, 1e-5) <= 1e-6 (see test::expect_gradients).
// analytic = what backward added to a buffer that held `before`.
void expect_grad(const Vec& after, const Vec& before, const Vec& numeric, const std::string& what) {
  ASSERT_EQ(after.size(), before.size()) << what;
  Vec analytic(after.size());
  for (size_t i = 0; i < after.size(); ++i) analytic[i] = after[i] - before[i];
  test::expect_gradients(analytic, numeric, what, 1e-6, 1e-5);
}

double dot(const Vec& a, const Vec& b) {
  double s = 0;
  for (size_t i = 0; i < a.size(); ++i) s += a[i] * b[i];
  return s;
}

// Values with |x| in [0.1, 1] and random sign: away from ReLU's kink by more than 2h.
Vec away_from_zero(int64_t n, uint32_t seed) {
  Vec v = random_vector<double>(n, seed, 0.1, 1.0);
  Vec s = random_vector<double>(n, seed + 1000);
  for (size_t i = 0; i < v.size(); ++i) v[i] = s[i] < 0 ? -v[i] : v[i];
  return v;
}

constexpr int B = 2, T = 5, C = 8, NH = 2, OC = 6, V = 7;

}  // namespace

TEST(RefGradcheck, Encoder) {
  const int32_t inp[B * T] = {3, 1, 4, 1, 5, 6, 2, 6, 5, 3};  // repeats exercise accumulation
  Vec wte = random_vector<double>(V * C, 1), wpe = random_vector<double>(T * C, 2);
  Vec R = random_vector<double>(B * T * C, 3), out(B * T * C);
  for (bool with_wpe : {true, false}) {
    auto loss = [&] {
      ref::encoder_forward(out.data(), inp, wte.data(), with_wpe ? wpe.data() : nullptr, B, T, C);
      return dot(out, R);
    };
    Vec dwte0 = random_vector<double>(V * C, 4), dwpe0 = random_vector<double>(T * C, 5);
    Vec dwte = dwte0, dwpe = dwpe0;
    loss();
    ref::encoder_backward(dwte.data(), with_wpe ? dwpe.data() : nullptr, R.data(), inp, B, T, C);
    expect_grad(dwte, dwte0, numeric_grad(wte, loss), "encoder dwte");
    if (with_wpe) expect_grad(dwpe, dwpe0, numeric_grad(wpe, loss), "encoder dwpe");
    // Token 0 never occurs: its row of dwte must be untouched.
    for (int c = 0; c < C; ++c) EXPECT_EQ(dwte[c], dwte0[c]);
  }
}

TEST(RefGradcheck, Matmul) {
  const int N = B * T;
  Vec inp = random_vector<double>(N * C, 10), w = random_vector<double>(OC * C, 11);
  Vec bias = random_vector<double>(OC, 12), R = random_vector<double>(N * OC, 13), out(N * OC);
  for (bool with_bias : {true, false}) {
    auto loss = [&] {
      ref::matmul_forward(out.data(), inp.data(), w.data(), with_bias ? bias.data() : nullptr, N, C,
                          OC);
      return dot(out, R);
    };
    Vec dinp0 = random_vector<double>(N * C, 14), dw0 = random_vector<double>(OC * C, 15);
    Vec db0 = random_vector<double>(OC, 16);
    Vec dinp = dinp0, dw = dw0, db = db0;
    loss();
    ref::matmul_backward(dinp.data(), dw.data(), with_bias ? db.data() : nullptr, R.data(),
                         inp.data(), w.data(), N, C, OC);
    const std::string tag = with_bias ? " (bias)" : " (no bias)";
    expect_grad(dinp, dinp0, numeric_grad(inp, loss), "matmul dinp" + tag);
    expect_grad(dw, dw0, numeric_grad(w, loss), "matmul dweight" + tag);
    if (with_bias)
      expect_grad(db, db0, numeric_grad(bias, loss), "matmul dbias");
    else
      EXPECT_EQ(db, db0);
  }
  // Each of the three gradients may be requested alone.
  Vec dinp(N * C, 0.0), dw(OC * C, 0.0), db(OC, 0.0), dinp_only(N * C, 0.0);
  ref::matmul_backward(dinp.data(), dw.data(), db.data(), R.data(), inp.data(), w.data(), N, C, OC);
  ref::matmul_backward(dinp_only.data(), static_cast<double*>(nullptr),
                       static_cast<double*>(nullptr), R.data(), inp.data(), w.data(), N, C, OC);
  EXPECT_EQ(dinp_only, dinp);
}

TEST(RefGradcheck, LayerNorm) {
  const int N = B * T;
  Vec inp = random_vector<double>(N * C, 20, -2.0, 2.0);
  Vec w = random_vector<double>(C, 21, 0.5, 1.5), bias = random_vector<double>(C, 22);
  Vec R = random_vector<double>(N * C, 23), out(N * C), mean(N), rstd(N);
  for (bool with_bias : {true, false}) {
    auto loss = [&] {
      ref::layernorm_forward(out.data(), mean.data(), rstd.data(), inp.data(), w.data(),
                             with_bias ? bias.data() : nullptr, N, C);
      return dot(out, R);
    };
    Vec dinp0 = random_vector<double>(N * C, 24), dw0 = random_vector<double>(C, 25);
    Vec db0 = random_vector<double>(C, 26);
    Vec dinp = dinp0, dw = dw0, db = db0;
    loss();
    ref::layernorm_backward(dinp.data(), dw.data(), with_bias ? db.data() : nullptr, R.data(),
                            inp.data(), w.data(), mean.data(), rstd.data(), N, C);
    const std::string tag = with_bias ? " (bias)" : " (bias-free)";
    expect_grad(dinp, dinp0, numeric_grad(inp, loss), "layernorm dinp" + tag);
    expect_grad(dw, dw0, numeric_grad(w, loss), "layernorm dweight" + tag);
    if (with_bias)
      expect_grad(db, db0, numeric_grad(bias, loss), "layernorm dbias");
    else
      EXPECT_EQ(db, db0);
  }
  // Forward: each row has mean 0 and (biased) variance 1/(1 + eps/var) before the affine map.
  Vec ones(C, 1.0);
  ref::layernorm_forward(out.data(), mean.data(), rstd.data(), inp.data(), ones.data(),
                         static_cast<const double*>(nullptr), N, C);
  for (int n = 0; n < N; ++n) {
    double m = 0, v = 0, xm = 0, xv = 0;
    for (int c = 0; c < C; ++c) m += out[n * C + c] / C, xm += inp[n * C + c] / C;
    for (int c = 0; c < C; ++c) {
      v += (out[n * C + c] - m) * (out[n * C + c] - m) / C;
      xv += (inp[n * C + c] - xm) * (inp[n * C + c] - xm) / C;
    }
    EXPECT_NEAR(m, 0.0, 1e-12);
    EXPECT_NEAR(v, xv / (xv + 1e-5), 1e-12);
    EXPECT_NEAR(mean[n], xm, 1e-12);
    EXPECT_NEAR(rstd[n], 1.0 / std::sqrt(xv + 1e-5), 1e-12);
  }
}

TEST(RefGradcheck, Relu) {
  const int64_t n = B * T * C;
  Vec inp = away_from_zero(n, 30), R = random_vector<double>(n, 31), out(n);
  auto loss = [&] {
    ref::relu_forward(out.data(), inp.data(), n);
    return dot(out, R);
  };
  Vec d0 = random_vector<double>(n, 32), d = d0;
  loss();
  ref::relu_backward(d.data(), inp.data(), R.data(), n);
  expect_grad(d, Vec(n, 0.0), numeric_grad(inp, loss), "relu dinp");  // d0 overwritten
}

TEST(RefGradcheck, Gelu) {
  const int64_t n = B * T * C;
  Vec inp = random_vector<double>(n, 40, -4.0, 4.0), R = random_vector<double>(n, 41), out(n);
  auto loss = [&] {
    ref::gelu_forward(out.data(), inp.data(), n);
    return dot(out, R);
  };
  Vec d0 = random_vector<double>(n, 42), d = d0;
  loss();
  ref::gelu_backward(d.data(), inp.data(), R.data(), n);
  expect_grad(d, Vec(n, 0.0), numeric_grad(inp, loss), "gelu dinp");  // d0 overwritten
  // Known values of the tanh approximation: gelu(0) = 0, gelu(1) = 0.8411919906...
  double x[2] = {0.0, 1.0}, y[2];
  ref::gelu_forward(y, x, 2);
  EXPECT_EQ(y[0], 0.0);
  EXPECT_NEAR(y[1], 0.5 * (1 + std::tanh(std::sqrt(2 / M_PI) * 1.044715)), 1e-15);
  EXPECT_NEAR(y[1], 0.8411919906, 1e-9);
}

TEST(RefGradcheck, GeluExact) {
  const int64_t n = B * T * C;
  Vec inp = random_vector<double>(n, 43, -4.0, 4.0), R = random_vector<double>(n, 44), out(n);
  auto loss = [&] {
    ref::gelu_exact_forward(out.data(), inp.data(), n);
    return dot(out, R);
  };
  Vec d0 = random_vector<double>(n, 45), d = d0;
  loss();
  ref::gelu_exact_backward(d.data(), inp.data(), R.data(), n);
  expect_grad(d, Vec(n, 0.0), numeric_grad(inp, loss), "gelu_exact dinp");  // d0 overwritten
  // x Phi(x): Phi(0) = 1/2, Phi(1) = 0.8413447460685429..., Phi(-1) = 1 - Phi(1).
  double x[3] = {0.0, 1.0, -1.0}, y[3];
  ref::gelu_exact_forward(y, x, 3);
  EXPECT_EQ(y[0], 0.0);
  EXPECT_NEAR(y[1], 0.8413447460685429, 1e-15);
  EXPECT_NEAR(y[2], -(1.0 - 0.8413447460685429), 1e-15);
}

TEST(RefGradcheck, Softmax) {
  const int N = B * T;
  const double ninf = -std::numeric_limits<double>::infinity();
  Vec inp = random_vector<double>(N * C, 50, -3.0, 3.0), R = random_vector<double>(N * C, 51);
  // Masked entries, as in causal attention: row n has its last n % C entries at -inf.
  for (int n = 0; n < N; ++n)
    for (int c = C - n % C; c < C; ++c) inp[n * C + c] = ninf;
  Vec out(N * C);
  auto loss = [&] {
    ref::softmax_forward(out.data(), inp.data(), N, C);
    return dot(out, R);
  };
  Vec d0 = random_vector<double>(N * C, 52), d = d0;
  loss();
  ref::softmax_backward(d.data(), R.data(), out.data(), N, C);
  for (int n = 0; n < N; ++n) {
    double s = 0;
    for (int c = 0; c < C; ++c) s += out[n * C + c];
    EXPECT_NEAR(s, 1.0, 1e-14) << "row " << n;
  }
  // Perturb only the finite entries; masked ones must get exactly zero probability and gradient.
  Vec numeric(N * C, 0.0);
  for (int i = 0; i < N * C; ++i) {
    if (std::isinf(inp[i])) {
      EXPECT_EQ(out[i], 0.0);
      continue;
    }
    Vec one = {inp[i]};
    auto loss_i = [&] {
      const double keep = inp[i];
      inp[i] = one[0];
      const double l = loss();
      inp[i] = keep;
      return l;
    };
    numeric[i] = numeric_grad(one, loss_i)[0];
  }
  expect_grad(d, d0, numeric, "softmax dinp");
}

TEST(RefGradcheck, Residual) {
  const int64_t n = B * T * C;
  Vec a = random_vector<double>(n, 60), b = random_vector<double>(n, 61);
  Vec R = random_vector<double>(n, 62), out(n);
  auto loss = [&] {
    ref::residual_forward(out.data(), a.data(), b.data(), n);
    return dot(out, R);
  };
  Vec da0 = random_vector<double>(n, 63), db0 = random_vector<double>(n, 64);
  Vec da = da0, db = db0;
  loss();
  ref::residual_backward(da.data(), db.data(), R.data(), n);
  expect_grad(da, da0, numeric_grad(a, loss), "residual da");
  expect_grad(db, db0, numeric_grad(b, loss), "residual db");
}

TEST(RefGradcheck, Dropout) {
  const int64_t n = B * T * C;
  const double p = 0.25;
  Vec inp = random_vector<double>(n, 70), R = random_vector<double>(n, 71), out(n), mask(n);
  Vec u = random_vector<double>(n, 72, 0.0, 1.0), keep(n);
  int dropped = 0;
  for (int64_t i = 0; i < n; ++i) {
    keep[i] = u[i] < 1 - p ? 1.0 : 0.0;
    dropped += keep[i] == 0.0;
  }
  ASSERT_GT(dropped, 0);
  auto loss = [&] {
    mask = keep;  // forward turns the 0/1 keep mask into the scaled mask in place
    ref::dropout_forward(out.data(), mask.data(), inp.data(), n, p);
    return dot(out, R);
  };
  Vec d0 = random_vector<double>(n, 73), d = d0;
  loss();
  for (int64_t i = 0; i < n; ++i) {
    EXPECT_EQ(mask[i], keep[i] / (1 - p));
    EXPECT_DOUBLE_EQ(out[i], inp[i] * keep[i] / (1 - p));
  }
  ref::dropout_backward(d.data(), R.data(), mask.data(), n);
  expect_grad(d, d0, numeric_grad(inp, loss), "dropout dinp");
}

TEST(RefGradcheck, Attention) {
  const int64_t nqkv = B * T * 3 * C, natt = B * NH * T * T;
  const double ninf = -std::numeric_limits<double>::infinity();
  Vec qkv = random_vector<double>(nqkv, 80, -1.5, 1.5), R = random_vector<double>(B * T * C, 81);
  // A fixed scaled dropout mask on the attention weights (p = 0.3).
  Vec u = random_vector<double>(natt, 82, 0.0, 1.0), drop(natt);
  for (int64_t i = 0; i < natt; ++i) drop[i] = u[i] < 0.7 ? 1.0 / 0.7 : 0.0;
  Vec out(B * T * C), preatt(natt), att(natt), dpreatt(natt), datt(natt);
  for (bool with_drop : {false, true}) {
    const double* dm = with_drop ? drop.data() : nullptr;
    auto loss = [&] {
      ref::attention_forward(out.data(), preatt.data(), att.data(), qkv.data(), dm, B, T, C, NH);
      return dot(out, R);
    };
    Vec d0 = random_vector<double>(nqkv, 83), d = d0;
    loss();
    // Masked scores are -inf, weights there exactly 0, and each row of weights sums to 1.
    for (int64_t r = 0; r < B * NH * T; ++r) {
      const int t = static_cast<int>(r % T);
      double s = 0;
      for (int t2 = 0; t2 < T; ++t2) {
        if (t2 > t) {
          EXPECT_EQ(preatt[r * T + t2], ninf);
          EXPECT_EQ(att[r * T + t2], 0.0);
        } else {
          EXPECT_TRUE(std::isfinite(preatt[r * T + t2]));
        }
        s += att[r * T + t2];
      }
      EXPECT_NEAR(s, 1.0, 1e-14);
    }
    ref::attention_backward(d.data(), dpreatt.data(), datt.data(), R.data(), qkv.data(), att.data(),
                            dm, B, T, C, NH);
    expect_grad(d, Vec(nqkv, 0.0), numeric_grad(qkv, loss),  // d0 overwritten
                with_drop ? "attention dqkv (dropout mask)" : "attention dqkv");
  }
}

TEST(RefGradcheck, AttentionFirstRowIsItsValue) {
  // At t = 0 only position 0 is visible: out[b, 0, head h] = v[b, 0, head h] exactly.
  Vec qkv = random_vector<double>(B * T * 3 * C, 90), out(B * T * C);
  Vec preatt(B * NH * T * T), att(B * NH * T * T);
  ref::attention_forward(out.data(), preatt.data(), att.data(), qkv.data(),
                         static_cast<const double*>(nullptr), B, T, C, NH);
  for (int b = 0; b < B; ++b)
    for (int c = 0; c < C; ++c) EXPECT_EQ(out[b * T * C + c], qkv[b * T * 3 * C + 2 * C + c]);
}

TEST(RefGradcheck, CrossEntropy) {
  const int N = B * T;
  const int32_t targets[N] = {0, 6, 3, 3, 1, 2, 5, 4, 6, 0};
  Vec logits = random_vector<double>(N * V, 100, -3.0, 3.0), R = random_vector<double>(N, 101);
  Vec losses(N), probs(N * V);
  auto loss = [&] {
    ref::crossentropy_forward(losses.data(), probs.data(), logits.data(), targets, N, V);
    return dot(losses, R);
  };
  Vec d0 = random_vector<double>(N * V, 102), d = d0;
  loss();
  for (int n = 0; n < N; ++n) {
    double s = 0;
    for (int v = 0; v < V; ++v) s += std::exp(logits[n * V + v]);
    EXPECT_NEAR(losses[n], std::log(s) - logits[n * V + targets[n]], 1e-13);
  }
  ref::crossentropy_backward(d.data(), probs.data(), targets, R.data(), N, V);
  // d started as d0: the kernel overwrites it.
  expect_grad(d, Vec(N * V, 0.0), numeric_grad(logits, loss), "crossentropy dlogits");
}

TEST(RefGradcheck, CrossEntropyExtremeLogitsStayFinite) {
  // A target whose probability underflows to 0 in float still gets a finite, exact loss.
  float logits[3] = {0.0f, 200.0f, -200.0f}, probs[3], loss;
  const int32_t target = 2;
  ref::crossentropy_forward(&loss, probs, logits, &target, 1, 3);
  EXPECT_EQ(probs[2], 0.0f);
  EXPECT_NEAR(loss, 400.0f, 1e-3f);
}
