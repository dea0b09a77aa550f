// head.h: the lecture's single self-attention Head ("Let's build GPT", gpt.py): key, query and
// value are nn.Linear(C, HS, bias=False) (created in that order), wei = q k^T * HS^-0.5 with a
// tril mask (-inf) and softmax, dropout on wei in training, out = wei v.
// `scaled = false` gives the lecture's first version, which has no HS^-0.5.
// Leaves out: several heads (multi_head_attention.h). Engine twin: nn/causal_self_attention.h.
#pragma once

#include <vector>

#include "core/rng.h"
#include "stones/attend.h"

namespace scratchgpt::stones {

template <typename F>
struct Head {
  int C = 0, HS = 0;   // n_embd, head_size
  int block_size = 0;  // the tril buffer is (block_size, block_size)
  float dropout = 0.0f;
  bool scaled = true;
  Linear<F> key, query, value;
  int B = 0, T = 0;
  std::vector<F> k, q, v;      // (B, T, HS)
  std::vector<F> scores, wei;  // (B, T, T): q k^T with -inf above the diagonal; softmax
  std::vector<F> drop;         // (B, T, T) scaled dropout mask, empty in eval / p == 0

  Head(int n_embd, int head_size, int block_size, float dropout);
  void init(Rng& rng);  // key, query, value
  // out (B, T, HS) from x (B, T, C); rng non-null: training (dropout on wei).
  void forward(F* out, const F* x, int b, int t, Rng* rng = nullptr);
  void backward(F* dx /* (B, T, C), accumulated */, const F* dout /* (B, T, HS) */);
  void zero_grad();
  Scale scale() const { return scaled ? Scale::kMultiplyInvSqrt : Scale::kNone; }
};

}  // namespace scratchgpt::stones
