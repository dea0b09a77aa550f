// stones_test_util.h: what the stepping-stone tests share: every module's parameters listed under
// PyTorch's state_dict names (value and grad side by side), and a gradient check by central
// differences in double.
#pragma once

#include <gtest/gtest.h>

#include <cmath>
#include <functional>
#include <string>
#include <vector>

#include "stones/feed_forward.h"
#include "stones/multi_head_attention.h"
#include "stones/self_attention.h"
#include "test_util.h"

namespace scratchgpt::stones::test {

template <typename F>
struct ParamRef {
  std::string name;  // PyTorch's state_dict key, e.g. "heads.0.key.weight"
  std::vector<F>* value;
  std::vector<F>* grad;
};

template <typename F>
void add_linear(std::vector<ParamRef<F>>& out, const std::string& prefix, Linear<F>& l) {
  out.push_back({prefix + ".weight", &l.weight, &l.weight_grad});
  if (l.has_bias) out.push_back({prefix + ".bias", &l.bias, &l.bias_grad});
}

template <typename F>
std::vector<ParamRef<F>> params_of(SelfAttentionV1<F>& m) {
  return {{"W_query", &m.W_query, &m.dW_query},
          {"W_key", &m.W_key, &m.dW_key},
          {"W_value", &m.W_value, &m.dW_value}};
}
template <typename F>
std::vector<ParamRef<F>> params_of(SelfAttentionV2<F>& m, const std::string& p = "") {
  std::vector<ParamRef<F>> out;
  add_linear(out, p + "W_query", m.W_query);
  add_linear(out, p + "W_key", m.W_key);
  add_linear(out, p + "W_value", m.W_value);
  return out;
}
template <typename F>
std::vector<ParamRef<F>> params_of(CausalAttention<F>& m, const std::string& p = "") {
  std::vector<ParamRef<F>> out;
  add_linear(out, p + "W_query", m.W_query);
  add_linear(out, p + "W_key", m.W_key);
  add_linear(out, p + "W_value", m.W_value);
  return out;
}
template <typename F>
std::vector<ParamRef<F>> params_of(Head<F>& m, const std::string& p = "") {
  std::vector<ParamRef<F>> out;
  add_linear(out, p + "key", m.key);
  add_linear(out, p + "query", m.query);
  add_linear(out, p + "value", m.value);
  return out;
}
template <typename F>
std::vector<ParamRef<F>> params_of(MultiHeadAttentionWrapper<F>& m) {
  std::vector<ParamRef<F>> out;
  for (size_t h = 0; h < m.heads.size(); ++h)
    for (auto& r : params_of(m.heads[h], "heads." + std::to_string(h) + ".")) out.push_back(r);
  return out;
}
template <typename F>
std::vector<ParamRef<F>> params_of(LectureMultiHeadAttention<F>& m) {
  std::vector<ParamRef<F>> out;
  for (size_t h = 0; h < m.heads.size(); ++h)
    for (auto& r : params_of(m.heads[h], "heads." + std::to_string(h) + ".")) out.push_back(r);
  add_linear(out, "proj", m.proj);
  return out;
}
template <typename F>
std::vector<ParamRef<F>> params_of(MultiHeadAttention<F>& m) {
  std::vector<ParamRef<F>> out;
  add_linear(out, "W_query", m.W_query);
  add_linear(out, "W_key", m.W_key);
  add_linear(out, "W_value", m.W_value);
  add_linear(out, "out_proj", m.out_proj);
  return out;
}
template <typename F>
std::vector<ParamRef<F>> params_of(FeedForward<F>& m) {
  std::vector<ParamRef<F>> out;
  add_linear(out, "net.0", m.fc1);
  add_linear(out, "net.2", m.fc2);
  return out;
}

// Fills every parameter with seeded uniform numbers in [-1, 1).
template <typename F>
void randomise(std::vector<ParamRef<F>> params, uint32_t seed) {
  for (auto& p : params) scratchgpt::test::fill_uniform(*p.value, seed++);
}

// |analytic - numeric| / max(|analytic|, |numeric|, floor) for one gradient entry.
inline double rel_err(double a, double n, double floor = 1e-4) {
  return std::fabs(a - n) / std::max({std::fabs(a), std::fabs(n), floor});
}

// Checks a module's backward against 5-point central differences of L = sum(out * g):
//   fwd(x) runs the forward and returns out; bwd(dx, g) runs the backward of the last forward,
//   accumulating into dx and the parameter grads; zero() clears the parameter grads.
// Also checks that a second backward accumulates (every gradient doubles).
inline void gradcheck(const std::string& what, std::vector<double> x,
                      std::vector<ParamRef<double>> params,
                      const std::function<std::vector<double>(const std::vector<double>&)>& fwd,
                      const std::function<void(double*, const double*)>& bwd,
                      const std::function<void()>& zero, double tol = 1e-6) {
  std::vector<double> out = fwd(x);
  const std::vector<double> g =
      scratchgpt::test::random_vector<double>(static_cast<int64_t>(out.size()), 99);
  auto loss = [&](const std::vector<double>& xx) {
    std::vector<double> o = fwd(xx);
    double s = 0;
    for (size_t i = 0; i < o.size(); ++i) s += o[i] * g[i];
    return s;
  };
  zero();
  fwd(x);
  std::vector<double> dx(x.size(), 0.0);
  bwd(dx.data(), g.data());
  std::vector<std::vector<double>> grads;
  for (auto& p : params) grads.push_back(*p.grad);
  // Accumulation: a second backward of the same forward doubles everything.
  std::vector<double> dx2 = dx;
  bwd(dx2.data(), g.data());
  for (size_t i = 0; i < dx.size(); ++i)
    ASSERT_NEAR(dx2[i], 2 * dx[i], 1e-12 + 1e-12 * std::fabs(dx[i])) << what << ": dx accumulates";
  for (size_t k = 0; k < params.size(); ++k)
    for (size_t i = 0; i < grads[k].size(); ++i)
      ASSERT_NEAR((*params[k].grad)[i], 2 * grads[k][i], 1e-12 + 1e-12 * std::fabs(grads[k][i]))
          << what << ": " << params[k].name << " accumulates";

  const double h = 1e-4;
  auto numeric = [&](double& v) {
    const double v0 = v;
    v = v0 + 2 * h;
    const double f2 = loss(x);
    v = v0 + h;
    const double f1 = loss(x);
    v = v0 - h;
    const double fm1 = loss(x);
    v = v0 - 2 * h;
    const double fm2 = loss(x);
    v = v0;
    return (-f2 + 8 * f1 - 8 * fm1 + fm2) / (12 * h);
  };
  double worst = 0;
  for (size_t i = 0; i < x.size(); ++i) {
    const double n = numeric(x[i]);
    const double e = rel_err(dx[i], n);
    worst = std::max(worst, e);
    EXPECT_LE(e, tol) << what << ": dx[" << i << "] analytic " << dx[i] << " numeric " << n;
  }
  for (size_t k = 0; k < params.size(); ++k)
    for (size_t i = 0; i < grads[k].size(); ++i) {
      const double n = numeric((*params[k].value)[i]);
      const double e = rel_err(grads[k][i], n);
      worst = std::max(worst, e);
      EXPECT_LE(e, tol) << what << ": d" << params[k].name << "[" << i << "] analytic "
                        << grads[k][i] << " numeric " << n;
    }
  EXPECT_LE(worst, tol) << what;
}

}  // namespace scratchgpt::stones::test
