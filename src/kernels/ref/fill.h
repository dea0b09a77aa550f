// fill.h: clearing and copying a buffer, the scalar reference: what backward does to a gradient
// buffer before kernels accumulate into it (zero) and where a gradient passes through unchanged
// (copy, the residual connection), setting one to a value (fill) and scaling one (scale).
#pragma once

#include <cstdint>

namespace scratchgpt::ref {

template <typename F>
void zero(F* x, int64_t n) {
  for (int64_t i = 0; i < n; ++i) x[i] = F(0);
}

template <typename F>
void copy(F* dst, const F* src, int64_t n) {
  for (int64_t i = 0; i < n; ++i) dst[i] = src[i];
}

// x = value everywhere: the loss's gradient, 1/N at each of N positions.
template <typename F>
void fill(F* x, int64_t n, F value) {
  for (int64_t i = 0; i < n; ++i) x[i] = value;
}

// x *= s: the mean over gradient-accumulation steps, a gradient clipped to its norm.
template <typename F>
void scale(F* x, int64_t n, F s) {
  for (int64_t i = 0; i < n; ++i) x[i] *= s;
}

}  // namespace scratchgpt::ref
