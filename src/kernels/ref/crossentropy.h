// crossentropy.h: fused softmax + cross-entropy over the vocabulary, the scalar reference.
// loss[n] = -log softmax(logits[n])[targets[n]]; the mean over n is F.cross_entropy's value.
// Fast twin: kernels/cpu/crossentropy.h.
#pragma once

#include <cmath>
#include <cstdint>
#include <limits>

namespace scratchgpt::ref {

// losses (N); probs (N, V) saved for backward; logits (N, V); targets (N) in [0, V).
template <typename F>
void crossentropy_forward(F* losses, F* probs, const F* logits, const int32_t* targets, int N,
                          int V) {
  for (int n = 0; n < N; ++n) {
    const F* x = logits + static_cast<int64_t>(n) * V;
    F* p = probs + static_cast<int64_t>(n) * V;
    F mx = -std::numeric_limits<F>::infinity();
    for (int v = 0; v < V; ++v) mx = x[v] > mx ? x[v] : mx;
    F sum = 0;
    for (int v = 0; v < V; ++v) {
      p[v] = std::exp(x[v] - mx);
      sum += p[v];
    }
    for (int v = 0; v < V; ++v) p[v] /= sum;
    // log-sum-exp form: exact even when probs[target] underflows.
    losses[n] = std::log(sum) + mx - x[targets[n]];
  }
}

// Writes dlogits[n] = dlosses[n] * (probs[n] - onehot(targets[n])) (dlogits is not read).
// For the mean loss pass dlosses[n] = 1/N.
template <typename F>
void crossentropy_backward(F* dlogits, const F* probs, const int32_t* targets, const F* dlosses,
                           int N, int V) {
  for (int n = 0; n < N; ++n) {
    const F* p = probs + static_cast<int64_t>(n) * V;
    F* d = dlogits + static_cast<int64_t>(n) * V;
    for (int v = 0; v < V; ++v) d[v] = dlosses[n] * (p[v] - (v == targets[n] ? F(1) : F(0)));
  }
}

}  // namespace scratchgpt::ref
