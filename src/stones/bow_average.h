// bow_average.h: the lecture's "mathematical trick in self-attention": each token's output is the
// average of itself and every token before it, xbow[b, t] = mean_{i <= t} x[b, i] (a "bag of
// words"), computed three ways that agree:
//   1. bow_average_loops        two for-loops, as the lecture's first version
//   2. bow_weights_tril         wei = tril(ones(T, T)) / row sums, then xbow2 = wei @ x
//   3. bow_weights_softmax      wei = softmax(zeros(T, T).masked_fill(tril == 0, -inf)), xbow3 =
//   wei @ x
// Version 3 is self-attention with all affinities equal; head.h learns the affinities instead.
// Leaves out: speed. Templated on F so the backward is gradient-checked in double.
#pragma once

#include <cstdint>

namespace scratchgpt::stones {

// out (B, T, C): for b, t: xprev = x[b, :t+1]; xbow[b, t] = torch.mean(xprev, 0)
template <typename F>
void bow_average_loops(F* out, const F* x, int B, int T, int C);

// wei (T, T) = tril(ones(T, T)); wei = wei / wei.sum(1, keepdim=True)
template <typename F>
void bow_weights_tril(F* wei, int T);

// wei (T, T) = zeros(T, T).masked_fill(tril == 0, -inf)  (before=true: stop here, to show it)
// then F.softmax(wei, dim=-1)
template <typename F>
void bow_weights_softmax(F* wei, int T, bool before_softmax = false);

// out (B, T, C) = wei (T, T) @ x (B, T, C), the (T, T) matrix broadcast over the batch.
template <typename F>
void bow_apply(F* out, const F* wei, const F* x, int B, int T, int C);

// Accumulates the gradient of xbow = wei @ x with respect to x: dx[b] += wei^T @ dout[b].
// With the averaging wei this is dx[b, i] += sum_{t >= i} dout[b, t] / (t + 1).
template <typename F>
void bow_apply_backward(F* dx, const F* wei, const F* dout, int B, int T, int C);

}  // namespace scratchgpt::stones
