// residual.h: the residual connection out = a + b, the scalar reference.
#pragma once

#include <cstdint>

namespace scratchgpt::ref {

template <typename F>
void residual_forward(F* out, const F* a, const F* b, int64_t n) {
  for (int64_t i = 0; i < n; ++i) out[i] = a[i] + b[i];
}

// Accumulates the gradient into both branches: da += dout, db += dout. (The model's Block does
// the same without this loop: both branches read dout in place; see nn/block.cpp.)
template <typename F>
void residual_backward(F* da, F* db, const F* dout, int64_t n) {
  for (int64_t i = 0; i < n; ++i) {
    da[i] += dout[i];
    db[i] += dout[i];
  }
}

}  // namespace scratchgpt::ref
