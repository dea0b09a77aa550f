// feed_forward.cpp: FeedForward<F> for float and double.

#include "stones/feed_forward.h"

#include "kernels/ref/relu.h"

namespace scratchgpt::stones {

template <typename F>
FeedForward<F>::FeedForward(int n_embd, float p)
    : C(n_embd), dropout(p), fc1(n_embd, 4 * n_embd, true), fc2(4 * n_embd, n_embd, true) {
  SG_CHECK(n_embd > 0, "FeedForward: n_embd must be positive");
  SG_CHECK(p >= 0.0f && p < 1.0f, "FeedForward: dropout must be in [0, 1), got ", p);
}

template <typename F>
void FeedForward<F>::init(Rng& rng) {
  fc1.init(rng);
  fc2.init(rng);
}

template <typename F>
void FeedForward<F>::forward(F* out, const F* x, int n, Rng* rng) {
  N = n;
  pre.resize(static_cast<size_t>(n) * 4 * C);
  act.resize(pre.size());
  fc1.forward(pre.data(), x, n);                                                // nn.Linear(C, 4C)
  ref::relu_forward(act.data(), pre.data(), static_cast<int64_t>(pre.size()));  // nn.ReLU()
  fc2.forward(out, act.data(), n);                                              // nn.Linear(4C, C)
  drop = draw_dropout_mask<F>(rng, static_cast<int64_t>(n) * C, dropout);
  for (size_t i = 0; i < drop.size(); ++i) out[i] *= drop[i];  // nn.Dropout(dropout)
}

template <typename F>
void FeedForward<F>::backward(F* dx, const F* dout) {
  std::vector<F> d2(dout, dout + static_cast<int64_t>(N) * C);    // (N, C)
  for (size_t i = 0; i < drop.size(); ++i) d2[i] *= drop[i];      // out = dropout(fc2)
  std::vector<F> dact(act.size(), F(0)), dpre(act.size(), F(0));  // (N, 4C)
  fc2.backward(dact.data(), d2.data());                           // fc2(act)
  ref::relu_backward(dpre.data(), pre.data(), dact.data(), static_cast<int64_t>(pre.size()));
  fc1.backward(dx, dpre.data());  // fc1(x)
}

template <typename F>
void FeedForward<F>::zero_grad() {
  fc1.zero_grad();
  fc2.zero_grad();
}

template struct FeedForward<float>;
template struct FeedForward<double>;

}  // namespace scratchgpt::stones
