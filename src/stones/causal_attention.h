// causal_attention.h: Raschka's CausalAttention (ch. 3.5): SelfAttention_v2 on a batch (B, T, C),
// with a causal mask (-inf before softmax, or the book's first attempt: zero after softmax and
// renormalise) and dropout on the attention weights in training (masks drawn as nn.Dropout draws
// them, so a seeded run drops what PyTorch drops). Templated on F for double gradient checks.
// Leaves out: multiple heads (multi_head_attention.h). Engine twin: nn/causal_self_attention.h.
#pragma once

#include <vector>

#include "core/rng.h"
#include "stones/attend.h"

namespace scratchgpt::stones {

template <typename F>
struct CausalAttention {
  int C = 0, OC = 0;       // d_in, d_out
  int context_length = 0;  // longest T (the book's mask buffer is (context_length, context_length))
  float dropout = 0.0f;
  CausalMask mask = CausalMask::kNegInf;
  Linear<F> W_query, W_key, W_value;
  int B = 0, T = 0;
  std::vector<F> q, k, v;          // (B, T, OC)
  std::vector<F> scores, weights;  // (B, T, T): masked scores (-inf above the diagonal), softmax
  std::vector<F> drop;             // (B, T, T) scaled dropout mask, empty in eval / p == 0

  CausalAttention(int d_in, int d_out, int context_length, float dropout, bool qkv_bias = false);
  void init(Rng& rng);  // W_query, W_key, W_value: nn.Linear draws in that order
  // out (B, T, OC) from x (B, T, C). rng non-null: training mode, dropout on the weights.
  void forward(F* out, const F* x, int b, int t, Rng* rng = nullptr);
  // Accumulates dx (B, T, C) and the weight gradients from dout (B, T, OC).
  void backward(F* dx, const F* dout);
  void zero_grad();
};

}  // namespace scratchgpt::stones
