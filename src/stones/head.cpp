// head.cpp: the lecture's Head<F>, for float (lessons) and double (gradient checks).

#include "stones/head.h"

namespace scratchgpt::stones {

template <typename F>
Head<F>::Head(int n_embd, int head_size, int bs, float p)
    : C(n_embd),
      HS(head_size),
      block_size(bs),
      dropout(p),
      key(n_embd, head_size, false),
      query(n_embd, head_size, false),
      value(n_embd, head_size, false) {
  SG_CHECK(n_embd > 0 && head_size > 0 && bs > 0,
           "Head: n_embd, head_size and block_size must be positive");
  SG_CHECK(p >= 0.0f && p < 1.0f, "Head: dropout must be in [0, 1), got ", p);
}

template <typename F>
void Head<F>::init(Rng& rng) {
  key.init(rng);  // self.key = nn.Linear(n_embd, head_size, bias=False), then query, value
  query.init(rng);
  value.init(rng);
}

template <typename F>
void Head<F>::forward(F* out, const F* x, int b, int t, Rng* rng) {
  SG_CHECK(t <= block_size, "Head: T = ", t, " exceeds block_size ", block_size,
           "; crop the context to the last block_size tokens");
  B = b;
  T = t;
  const int n = B * T;
  k.resize(static_cast<size_t>(n) * HS);
  q.resize(k.size());
  v.resize(k.size());
  key.forward(k.data(), x, n);    // k = self.key(x)    (B, T, HS)
  query.forward(q.data(), x, n);  // q = self.query(x)  (B, T, HS)
  scores.resize(static_cast<size_t>(B) * T * T);
  wei.resize(scores.size());
  // wei = self.dropout(wei): drawn over the whole (B, T, T) tensor, before v = self.value(x)
  // (value draws nothing, so the order does not change the numbers).
  drop = draw_dropout_mask<F>(rng, static_cast<int64_t>(wei.size()), dropout);
  value.forward(v.data(), x, n);  // v = self.value(x)  (B, T, HS)
  // wei = q @ k.transpose(-2, -1) * HS**-0.5; masked_fill(tril == 0, -inf); softmax; dropout;
  // out = wei @ v
  attend_heads_forward(out, scores.data(), wei.data(), q.data(), k.data(), v.data(),
                       Heads{B, 1, T, HS}, CausalMask::kNegInf, scale(), drop);
}

template <typename F>
void Head<F>::backward(F* dx, const F* dout) {
  std::vector<F> dq(q.size(), F(0)), dk(q.size(), F(0)), dv(q.size(), F(0));  // (B, T, HS)
  attend_heads_backward(dq.data(), dk.data(), dv.data(), dout, wei.data(), q.data(), k.data(),
                        v.data(), Heads{B, 1, T, HS}, scale(), drop);
  key.backward(dx, dk.data());    // k = self.key(x)
  query.backward(dx, dq.data());  // q = self.query(x)
  value.backward(dx, dv.data());  // v = self.value(x)
}

template <typename F>
void Head<F>::zero_grad() {
  key.zero_grad();
  query.zero_grad();
  value.zero_grad();
}

template struct Head<float>;
template struct Head<double>;

}  // namespace scratchgpt::stones
