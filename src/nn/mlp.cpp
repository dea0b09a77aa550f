// mlp.cpp: MLP forward, backward and single-row decoding.
#include "nn/mlp.h"

#include <algorithm>

#include "core/check.h"
#include "kernels/kernels.h"

namespace scratchgpt {

namespace {

// out16: the result rounded to bf16 there instead (out then unwritten; cuda only).
void activation_forward(const ExecContext& ex, Activation a, float* out, const float* inp,
                        int64_t n, uint16_t* out16 = nullptr) {
  switch (a) {
    case Activation::kRelu:
      return kernels::relu_forward(ex, out, inp, n, out16);
    case Activation::kGelu:
      return kernels::gelu_forward(ex, out, inp, n, out16);
    case Activation::kGeluExact:
      return kernels::gelu_exact_forward(ex, out, inp, n, out16);
  }
}

// Writes dinp = dout * act'(inp), and its bf16 copy to dinp16 when not null (cuda only).
void activation_backward(const ExecContext& ex, Activation a, float* dinp, const float* inp,
                         const float* dout, int64_t n, uint16_t* dinp16 = nullptr) {
  switch (a) {
    case Activation::kRelu:
      return kernels::relu_backward(ex, dinp, inp, dout, n, dinp16);
    case Activation::kGelu:
      return kernels::gelu_backward(ex, dinp, inp, dout, n, dinp16);
    case Activation::kGeluExact:
      return kernels::gelu_exact_backward(ex, dinp, inp, dout, n, dinp16);
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
  act = keep_bf16 ? nullptr : acts.take(int64_t{max_N} * 4 * C);
  // The projection and its dropped copy only feed the residual add: shared scratch.
  c_proj.plan(scratch, max_N);
  drop.plan(acts, scratch, int64_t{max_N} * C);
  dact = scratch.take(int64_t{max_N} * 4 * C);
  dfc = scratch.take(int64_t{max_N} * 4 * C);
  dfc16 = keep_bf16 ? scratch.take_bf16(int64_t{max_N} * 4 * C) : nullptr;
  dproj = scratch.take(int64_t{max_N} * C);
}

const float* MLP::forward(const ExecContext& ex, const float* x, int n, Rng* rng) {
  N = n;
  const int64_t n4 = int64_t{N} * 4 * C;
  const float* h = c_fc.forward(ex, x, N);  // (N, 4C)
  const float* p = nullptr;
  if (keep_bf16) {  // the activation only in bf16, straight into c_proj's kept input
    activation_forward(ex, activation, nullptr, h, n4, c_proj.inp16);  // (N, 4C)
    p = c_proj.forward(ex, nullptr, N);                                // (N, C)
  } else {
    activation_forward(ex, activation, act, h, n4);  // (N, 4C)
    p = c_proj.forward(ex, act, N);                  // (N, C)
  }
  return drop.forward(ex, p, int64_t{N} * C, rng);  // (N, C)
}

void MLP::backward(const ExecContext& ex, float* dx, const float* dout) {
  const int64_t n4 = int64_t{N} * 4 * C;
  // return dropout(p)
  const float* dp = drop.backward(ex, dproj, dout);
  // p = c_proj(act)
  c_proj.backward(ex, dact, dp);  // writes dact
  // act = gelu(h) or relu(h)
  activation_backward(ex, activation, dfc, c_fc.out, dact, n4, dfc16);  // writes dfc (, dfc16)
  // h = c_fc(x)
  c_fc.backward(ex, dx, dfc, dfc16);  // writes dx
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
