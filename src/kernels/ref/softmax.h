// softmax.h: row-wise softmax, the scalar reference. Rows may contain -inf (masked positions),
// which become exact zeros; max is subtracted first for stability.
#pragma once

#include <cmath>
#include <cstdint>
#include <limits>

namespace scratchgpt::ref {

// out (N, C) = softmax(inp (N, C)) along C.
template <typename F>
void softmax_forward(F* out, const F* inp, int N, int C) {
  for (int n = 0; n < N; ++n) {
    const F* x = inp + static_cast<int64_t>(n) * C;
    F* y = out + static_cast<int64_t>(n) * C;
    F mx = -std::numeric_limits<F>::infinity();
    for (int c = 0; c < C; ++c) mx = x[c] > mx ? x[c] : mx;
    F sum = 0;
    for (int c = 0; c < C; ++c) {
      y[c] = std::exp(x[c] - mx);
      sum += y[c];
    }
    for (int c = 0; c < C; ++c) y[c] /= sum;
  }
}

// Accumulates: dinp += y * (dout - sum(dout * y)), with y the forward output.
template <typename F>
void softmax_backward(F* dinp, const F* dout, const F* out, int N, int C) {
  for (int n = 0; n < N; ++n) {
    const F* dy = dout + static_cast<int64_t>(n) * C;
    const F* y = out + static_cast<int64_t>(n) * C;
    F dot = 0;
    for (int c = 0; c < C; ++c) dot += dy[c] * y[c];
    for (int c = 0; c < C; ++c) dinp[static_cast<int64_t>(n) * C + c] += y[c] * (dy[c] - dot);
  }
}

}  // namespace scratchgpt::ref
