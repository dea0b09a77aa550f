// self_attention.h: the stepping stones of self-attention from Raschka's "Build a Large Language
// Model from Scratch", ch. 3.3-3.4, each with a forward and a manual backward, templated on the
// float type F so that every backward is gradient-checked in double:
//   SimplifiedAttention  no weights: scores = x x^T, weights = softmax(scores), z = weights x
//   SelfAttentionV1      raw parameter matrices: q = x W_query (W is (C, OC)), scaled 1/sqrt(d_k)
//   SelfAttentionV2      the same with nn.Linear layers (W is (OC, C)), optional qkv bias
// What every attention stone shares (Linear<F>, attend_forward/backward, the masks) is in
// attend.h. Leaves out: batching (v1/v2 take one (T, C) sequence, as the book), speed. The
// engine's twin: nn/causal_self_attention.h.
#pragma once

#include <vector>

#include "stones/attend.h"

namespace scratchgpt::stones {

// ---------------------------------------------------------------- ch. 3.3: no trainable weights

// Raschka's simplified self-attention over one sequence x (T, C): every token is the query, the
// key and the value. No scaling, no mask.
template <typename F>
struct SimplifiedAttention {
  int T = 0, C = 0;
  std::vector<F> x;        // (T, C) saved
  std::vector<F> scores;   // (T, T) attn_scores = x @ x.T
  std::vector<F> weights;  // (T, T) attn_weights = softmax(attn_scores, dim=-1)

  // out (T, C): all_context_vecs = attn_weights @ inputs
  void forward(F* out, const F* inp, int t, int c) {
    T = t;
    C = c;
    x.assign(inp, inp + static_cast<int64_t>(T) * C);
    scores.resize(static_cast<size_t>(T) * T);
    weights.resize(scores.size());
    attend_forward(out, C, scores.data(), weights.data(), inp, inp, inp, C, T, C, CausalMask::kNone,
                   Scale::kNone, static_cast<const F*>(nullptr));
  }
  // Accumulates dinp (T, C): x is used as query, key and value, so it collects all three.
  void backward(F* dinp, const F* dout) {
    attend_backward(dinp, dinp, dinp, dout, C, weights.data(), x.data(), x.data(), x.data(), C, T,
                    C, Scale::kNone, static_cast<const F*>(nullptr));
  }
};

// ---------------------------------------------------------------- ch. 3.4: trainable weights

// SelfAttention_v1: W_query, W_key, W_value = nn.Parameter(torch.rand(d_in, d_out)), x @ W.
template <typename F>
struct SelfAttentionV1 {
  int C = 0, OC = 0, T = 0;                // d_in, d_out
  std::vector<F> W_query, W_key, W_value;  // (C, OC) each, as the book: x @ W
  std::vector<F> dW_query, dW_key, dW_value;
  std::vector<F> x, q, k, v;       // (T, C), (T, OC) x3 saved
  std::vector<F> scores, weights;  // (T, T)

  SelfAttentionV1(int d_in, int d_out);
  void init(Rng& rng);  // torch.rand(d_in, d_out) three times: query, key, value
  void forward(F* out /* (T, OC) */, const F* inp /* (T, C) */, int t);
  void backward(F* dinp /* (T, C), accumulated */, const F* dout /* (T, OC) */);
  void zero_grad();
};

// SelfAttention_v2: the same with nn.Linear(d_in, d_out, bias=qkv_bias), created query, key, value.
template <typename F>
struct SelfAttentionV2 {
  int C = 0, OC = 0, T = 0;
  Linear<F> W_query, W_key, W_value;
  std::vector<F> q, k, v;          // (T, OC)
  std::vector<F> scores, weights;  // (T, T)

  SelfAttentionV2(int d_in, int d_out, bool qkv_bias = false);
  void init(Rng& rng);
  void forward(F* out /* (T, OC) */, const F* inp /* (T, C) */, int t);
  void backward(F* dinp /* (T, C), accumulated */, const F* dout /* (T, OC) */);
  void zero_grad();
};

}  // namespace scratchgpt::stones
