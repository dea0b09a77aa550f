// mlp.cpp: MLP forward, backward and single-row decoding.
#include "nn/mlp.h"

#include <algorithm>

#include "core/check.h"
#include "kernels/kernels.h"

namespace scratchgpt {

namespace {

void activation_forward(const ExecContext& ex, Activation a, float* out, const float* inp,
                        int64_t n) {
  switch (a) {
    case Activation::kRelu:
      return kernels::relu_forward(ex, out, inp, n);
    case Activation::kGelu:
      return kernels::gelu_forward(ex, out, inp, n);
    case Activation::kGeluExact:
      return kernels::gelu_exact_forward(ex, out, inp, n);
  }
}

// Writes dinp = dout * act'(inp).
void activation_backward(const ExecContext& ex, Activation a, float* dinp, const float* inp,
                         const float* dout, int64_t n) {
  switch (a) {
    case Activation::kRelu:
      return kernels::relu_backward(ex, dinp, inp, dout, n);
    case Activation::kGelu:
      return kernels::gelu_backward(ex, dinp, inp, dout, n);
    case Activation::kGeluExact:
      return kernels::gelu_exact_backward(ex, dinp, inp, dout, n);
  }
}

}  // namespace

MLP::MLP(int n_embd, Activation kind, bool bias, float dropout)
    : C(n_embd),
      activation(kind),
      c_fc(n_embd, 4 * n_embd, bias),
      c_proj(4 * n_embd, n_embd, bias),
      drop(dropout) {}

void MLP::plan(SlabPlanner& acts, SlabPlanner& scratch, int max_N) {
  c_fc.plan(acts, max_N);
  act = acts.take(int64_t{max_N} * 4 * C);
  // The projection and its dropped copy only feed the residual add: shared scratch.
  c_proj.plan(scratch, max_N);
  drop.plan(acts, scratch, int64_t{max_N} * C);
  dact = scratch.take(int64_t{max_N} * 4 * C);
  dfc = scratch.take(int64_t{max_N} * 4 * C);
  dproj = scratch.take(int64_t{max_N} * C);
}

const float* MLP::forward(const ExecContext& ex, const float* x, int n, Rng* rng) {
  N = n;
  const int64_t n4 = int64_t{N} * 4 * C;
  const float* h = c_fc.forward(ex, x, N);          // (N, 4C)
  activation_forward(ex, activation, act, h, n4);   // (N, 4C)
  const float* p = c_proj.forward(ex, act, N);      // (N, C)
  return drop.forward(ex, p, int64_t{N} * C, rng);  // (N, C)
}

void MLP::backward(const ExecContext& ex, float* dx, const float* dout) {
  const int64_t n4 = int64_t{N} * 4 * C;
  // return dropout(p)
  const float* dp = drop.backward(ex, dproj, dout);
  // p = c_proj(act)
  c_proj.backward(ex, dact, dp);  // writes dact
  // act = gelu(h) or relu(h)
  activation_backward(ex, activation, dfc, c_fc.out, dact, n4);  // writes dfc
  // h = c_fc(x)
  c_fc.backward(ex, dx, dfc);  // writes dx
}

void MLP::decode(const ExecContext& ex, float* out, const float* x, int n, float* work) const {
  const int64_t N4C = int64_t{n} * 4 * C;
  float* h = work;        // (n, 4C)
  float* a = work + N4C;  // (n, 4C)
  c_fc.apply(ex, h, x, n);
  activation_forward(ex, activation, a, h, N4C);
  c_proj.apply(ex, out, a, n);
}

}  // namespace scratchgpt
