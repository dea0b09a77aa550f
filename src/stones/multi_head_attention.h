// multi_head_attention.h: several attention heads side by side, three ways, templated on F:
//   MultiHeadAttentionWrapper   Raschka 3.6.1: NH CausalAttention modules, outputs concatenated
//                               (B, T, NH*d_out); no output projection.
//   LectureMultiHeadAttention   the lecture's MultiHeadAttention: NH Heads concatenated, then
//                               proj = nn.Linear(NH*HS, C) and dropout.
//   MultiHeadAttention          Raschka 3.6.2, the efficient form: one W_query/W_key/W_value
//                               Linear(d_in, d_out) split into NH heads of HS = d_out/NH by
//                               view/transpose, then out_proj = nn.Linear(d_out, d_out).
// The stacked forms equal the split form given the same weights (tests/stones/stones_equivalence_test).
// Leaves out: speed. The engine's twin (one fused qkv Linear): nn/causal_self_attention.h.
#pragma once

#include <vector>

#include "core/rng.h"
#include "stones/causal_attention.h"
#include "stones/head.h"
#include "stones/attend.h"

namespace scratchgpt::stones {

template <typename F>
struct MultiHeadAttentionWrapper {
  int C = 0, OC = 0, NH = 0;  // d_in, d_out per head, num_heads; output has NH*OC channels
  std::vector<CausalAttention<F>> heads;
  int B = 0, T = 0;

  MultiHeadAttentionWrapper(int d_in, int d_out, int context_length, float dropout, int num_heads,
                            bool qkv_bias = false);
  void init(Rng& rng);  // head 0's W_query, W_key, W_value, then head 1's, ...
  // out (B, T, NH*OC) = torch.cat([head(x) for head in self.heads], dim=-1)
  void forward(F* out, const F* x, int b, int t, Rng* rng = nullptr);
  void backward(F* dx /* (B, T, C), accumulated */, const F* dout /* (B, T, NH*OC) */);
  void zero_grad();
};

template <typename F>
struct LectureMultiHeadAttention {
  int C = 0, NH = 0, HS = 0;  // n_embd, num_heads, head_size
  float dropout = 0.0f;
  std::vector<Head<F>> heads;
  Linear<F> proj;  // (NH*HS) -> C, with bias
  int B = 0, T = 0;
  std::vector<F> cat;   // (B, T, NH*HS) heads concatenated
  std::vector<F> drop;  // (B, T, C) scaled dropout mask after proj, empty in eval

  LectureMultiHeadAttention(int n_embd, int num_heads, int head_size, int block_size,
                            float dropout);
  void init(Rng& rng);  // every head (key, query, value), then proj
  // out (B, T, C) = dropout(proj(cat([h(x) for h in heads], dim=-1)))
  void forward(F* out, const F* x, int b, int t, Rng* rng = nullptr);
  void backward(F* dx /* (B, T, C), accumulated */, const F* dout /* (B, T, C) */);
  void zero_grad();
};

template <typename F>
struct MultiHeadAttention {
  int C = 0, OC = 0, NH = 0, HS = 0;  // d_in, d_out, num_heads, head_dim = d_out / num_heads
  int context_length = 0;
  float dropout = 0.0f;
  Linear<F> W_query, W_key, W_value;  // d_in -> d_out, bias = qkv_bias
  Linear<F> out_proj;                 // d_out -> d_out, with bias
  int B = 0, T = 0;
  std::vector<F> q, k, v;          // (B, T, d_out), read as (B, T, NH, HS)
  std::vector<F> scores, weights;  // (B, NH, T, T)
  std::vector<F> drop;             // (B, NH, T, T) scaled dropout mask, empty in eval
  std::vector<F> context;          // (B, T, d_out): (attn_weights @ values).transpose(1, 2)

  MultiHeadAttention(int d_in, int d_out, int context_length, float dropout, int num_heads,
                     bool qkv_bias = false);
  void init(Rng& rng);  // W_query, W_key, W_value, out_proj
  void forward(F* out /* (B, T, d_out) */, const F* x /* (B, T, d_in) */, int b, int t,
               Rng* rng = nullptr);
  void backward(F* dx /* (B, T, d_in), accumulated */, const F* dout /* (B, T, d_out) */);
  void zero_grad();
};

}  // namespace scratchgpt::stones
