// self_attention.cpp: SimplifiedAttention's friends SelfAttentionV1/V2,
// instantiated for float (the lessons) and double (the gradient checks).

#include "stones/self_attention.h"

#include "nn/init.h"

namespace scratchgpt::stones {

// ---------------------------------------------------------------- SelfAttentionV1

template <typename F>
SelfAttentionV1<F>::SelfAttentionV1(int d_in, int d_out)
    : C(d_in),
      OC(d_out),
      W_query(static_cast<size_t>(C) * OC),
      W_key(W_query.size()),
      W_value(W_query.size()),
      dW_query(W_query.size()),
      dW_key(W_query.size()),
      dW_value(W_query.size()) {
  SG_CHECK(d_in > 0 && d_out > 0, "SelfAttentionV1: d_in and d_out must be positive");
}

template <typename F>
void SelfAttentionV1<F>::init(Rng& rng) {
  std::vector<float> w(W_query.size());
  for (std::vector<F>* W : {&W_query, &W_key, &W_value}) {
    rng.rand(w.data(), static_cast<int64_t>(w.size()));  // torch.rand(d_in, d_out)
    assign_from_float(*W, w);
  }
}

template <typename F>
void SelfAttentionV1<F>::forward(F* out, const F* inp, int t) {
  T = t;
  x.assign(inp, inp + static_cast<int64_t>(T) * C);
  q.resize(static_cast<size_t>(T) * OC);
  k.resize(q.size());
  v.resize(q.size());
  mm(k.data(), inp, W_key.data(), T, C, OC);    // keys = x @ self.W_key            (T, OC)
  mm(q.data(), inp, W_query.data(), T, C, OC);  // queries = x @ self.W_query       (T, OC)
  mm(v.data(), inp, W_value.data(), T, C, OC);  // values = x @ self.W_value        (T, OC)
  scores.resize(static_cast<size_t>(T) * T);
  weights.resize(scores.size());
  // attn_weights = softmax(queries @ keys.T / keys.shape[-1]**0.5); context = attn_weights @ values
  attend_forward(out, OC, scores.data(), weights.data(), q.data(), k.data(), v.data(), OC, T, OC,
                 CausalMask::kNone, Scale::kDivideSqrt, static_cast<const F*>(nullptr));
}

template <typename F>
void SelfAttentionV1<F>::backward(F* dinp, const F* dout) {
  std::vector<F> dq(q.size(), F(0)), dk(q.size(), F(0)), dv(q.size(), F(0));  // (T, OC)
  attend_backward(dq.data(), dk.data(), dv.data(), dout, OC, weights.data(), q.data(), k.data(),
                  v.data(), OC, T, OC, Scale::kDivideSqrt, static_cast<const F*>(nullptr));
  // queries = x @ W_query: dx += dq W_query^T, dW_query += x^T dq (and so for key, value)
  mm_backward(dinp, dW_query.data(), dq.data(), x.data(), W_query.data(), T, C, OC);
  mm_backward(dinp, dW_key.data(), dk.data(), x.data(), W_key.data(), T, C, OC);
  mm_backward(dinp, dW_value.data(), dv.data(), x.data(), W_value.data(), T, C, OC);
}

template <typename F>
void SelfAttentionV1<F>::zero_grad() {
  for (std::vector<F>* g : {&dW_query, &dW_key, &dW_value}) std::fill(g->begin(), g->end(), F(0));
}

// ---------------------------------------------------------------- SelfAttentionV2

template <typename F>
SelfAttentionV2<F>::SelfAttentionV2(int d_in, int d_out, bool qkv_bias)
    : C(d_in),
      OC(d_out),
      W_query(d_in, d_out, qkv_bias),
      W_key(d_in, d_out, qkv_bias),
      W_value(d_in, d_out, qkv_bias) {
  SG_CHECK(d_in > 0 && d_out > 0, "SelfAttentionV2: d_in and d_out must be positive");
}

template <typename F>
void SelfAttentionV2<F>::init(Rng& rng) {
  W_query.init(rng);  // created in this order in __init__
  W_key.init(rng);
  W_value.init(rng);
}

template <typename F>
void SelfAttentionV2<F>::forward(F* out, const F* inp, int t) {
  T = t;
  q.resize(static_cast<size_t>(T) * OC);
  k.resize(q.size());
  v.resize(q.size());
  W_key.forward(k.data(), inp, T);    // keys = self.W_key(x)       (T, OC)
  W_query.forward(q.data(), inp, T);  // queries = self.W_query(x)  (T, OC)
  W_value.forward(v.data(), inp, T);  // values = self.W_value(x)   (T, OC)
  scores.resize(static_cast<size_t>(T) * T);
  weights.resize(scores.size());
  attend_forward(out, OC, scores.data(), weights.data(), q.data(), k.data(), v.data(), OC, T, OC,
                 CausalMask::kNone, Scale::kDivideSqrt, static_cast<const F*>(nullptr));
}

template <typename F>
void SelfAttentionV2<F>::backward(F* dinp, const F* dout) {
  std::vector<F> dq(q.size(), F(0)), dk(q.size(), F(0)), dv(q.size(), F(0));  // (T, OC)
  attend_backward(dq.data(), dk.data(), dv.data(), dout, OC, weights.data(), q.data(), k.data(),
                  v.data(), OC, T, OC, Scale::kDivideSqrt, static_cast<const F*>(nullptr));
  W_query.backward(dinp, dq.data());  // queries = self.W_query(x)
  W_key.backward(dinp, dk.data());
  W_value.backward(dinp, dv.data());
}

template <typename F>
void SelfAttentionV2<F>::zero_grad() {
  W_query.zero_grad();
  W_key.zero_grad();
  W_value.zero_grad();
}

template struct SelfAttentionV1<float>;
template struct SelfAttentionV1<double>;
template struct SelfAttentionV2<float>;
template struct SelfAttentionV2<double>;

}  // namespace scratchgpt::stones
