// causal_attention.cpp: CausalAttention<F>, for float and double.

#include "stones/causal_attention.h"

namespace scratchgpt::stones {

template <typename F>
CausalAttention<F>::CausalAttention(int d_in, int d_out, int ctx, float p, bool qkv_bias)
    : C(d_in),
      OC(d_out),
      context_length(ctx),
      dropout(p),
      W_query(d_in, d_out, qkv_bias),
      W_key(d_in, d_out, qkv_bias),
      W_value(d_in, d_out, qkv_bias) {
  SG_CHECK(d_in > 0 && d_out > 0 && ctx > 0,
           "CausalAttention: d_in, d_out and context_length must be positive");
  SG_CHECK(p >= 0.0f && p < 1.0f, "CausalAttention: dropout must be in [0, 1), got ", p);
}

template <typename F>
void CausalAttention<F>::init(Rng& rng) {
  W_query.init(rng);
  W_key.init(rng);
  W_value.init(rng);
}

template <typename F>
void CausalAttention<F>::forward(F* out, const F* x, int b, int t, Rng* rng) {
  SG_CHECK(t <= context_length, "CausalAttention: T = ", t, " exceeds context_length ",
           context_length, "; use a shorter input or a larger context_length");
  B = b;
  T = t;
  const int64_t n = static_cast<int64_t>(B) * T;
  q.resize(static_cast<size_t>(n) * OC);
  k.resize(q.size());
  v.resize(q.size());
  W_key.forward(k.data(), x, static_cast<int>(n));    // keys = self.W_key(x)       (B, T, OC)
  W_query.forward(q.data(), x, static_cast<int>(n));  // queries = self.W_query(x)  (B, T, OC)
  W_value.forward(v.data(), x, static_cast<int>(n));  // values = self.W_value(x)   (B, T, OC)
  scores.resize(static_cast<size_t>(B) * T * T);
  weights.resize(scores.size());
  // attn_weights = self.dropout(attn_weights): one draw over the whole (B, T, T) tensor.
  drop = draw_dropout_mask<F>(rng, static_cast<int64_t>(weights.size()), dropout);
  // The mask is drawn before the weights exist; torch draws it after, but nothing else draws
  // in between, so the numbers are the same.
  // attn_scores = queries @ keys.transpose(1, 2), masked_fill_(mask, -inf),
  // softmax(attn_scores / keys.shape[-1]**0.5), dropout, context_vec = attn_weights @ values
  attend_heads_forward(out, scores.data(), weights.data(), q.data(), k.data(), v.data(),
                       Heads{B, 1, T, OC}, mask, Scale::kDivideSqrt, drop);
}

template <typename F>
void CausalAttention<F>::backward(F* dx, const F* dout) {
  std::vector<F> dq(q.size(), F(0)), dk(q.size(), F(0)), dv(q.size(), F(0));  // (B, T, OC)
  attend_heads_backward(dq.data(), dk.data(), dv.data(), dout, weights.data(), q.data(), k.data(),
                        v.data(), Heads{B, 1, T, OC}, Scale::kDivideSqrt, drop);
  W_query.backward(dx, dq.data());  // queries = self.W_query(x)
  W_key.backward(dx, dk.data());    // keys = self.W_key(x)
  W_value.backward(dx, dv.data());  // values = self.W_value(x)
}

template <typename F>
void CausalAttention<F>::zero_grad() {
  W_query.zero_grad();
  W_key.zero_grad();
  W_value.zero_grad();
}

template struct CausalAttention<float>;
template struct CausalAttention<double>;

}  // namespace scratchgpt::stones
