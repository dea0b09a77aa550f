// dropout.h: inverted dropout, the scalar reference. In training each element is kept with
// probability 1-p and scaled by 1/(1-p) (torch.nn.Dropout); the keep mask is drawn by the caller
// with Rng::bernoulli_scalar(keep, n, 1 - p) (what nn.Dropout draws; Rng::dropout_noise gives the
// scaled mask directly), so a seeded run matches PyTorch, and the mask is saved for backward.
#pragma once

#include <cstdint>

namespace scratchgpt::ref {

// keep (n): 1 where kept, 0 where dropped (from Rng::bernoulli_scalar(keep, n, 1 - p)).
// Turns it in place into the scaled mask and applies it: mask = keep / (1-p); out = inp * mask.
template <typename F>
void dropout_forward(F* out, F* mask, const F* inp, int64_t n, F p) {
  const F scale = p < F(1) ? F(1) / (F(1) - p) : F(0);
  for (int64_t i = 0; i < n; ++i) {
    mask[i] = mask[i] * scale;
    out[i] = inp[i] * mask[i];
  }
}

// Accumulates: dinp += dout * mask; or, with accumulate false, writes dinp = 0 + dout * mask
// without reading it (the bits of adding into zeros).
template <typename F>
void dropout_backward(F* dinp, const F* dout, const F* mask, int64_t n, bool accumulate = true) {
  for (int64_t i = 0; i < n; ++i) dinp[i] = (accumulate ? dinp[i] : F(0)) + dout[i] * mask[i];
}

}  // namespace scratchgpt::ref
