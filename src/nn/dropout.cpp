// dropout.cpp: Dropout over cpu::dropout and Rng::bernoulli.
#include "nn/dropout.h"

#include <algorithm>

#include "kernels/cpu/dropout.h"

namespace scratchgpt {

const float* Dropout::forward(const float* x, int64_t count, Rng* rng) {
  active = rng != nullptr && p > 0.0f;
  n = count;
  if (!active) return x;
  rng->bernoulli(mask, n, 1.0f - p);           // keep with probability 1-p
  cpu::dropout_forward(out, mask, x, n, p);  // out = x * keep / (1-p)
  return out;
}

const float* Dropout::draw_mask(int64_t count, Rng* rng) {
  active = rng != nullptr && p > 0.0f;
  n = count;
  if (!active) return nullptr;
  rng->bernoulli(mask, n, 1.0f - p);
  const float scale = 1.0f / (1.0f - p);  // the same scale cpu::dropout_forward applies
  for (int64_t i = 0; i < n; ++i) mask[i] *= scale;
  return mask;
}

const float* Dropout::backward(float* scratch, const float* dout) const {
  if (!active) return dout;
  std::fill(scratch, scratch + n, 0.0f);
  cpu::dropout_backward(scratch, dout, mask, n);  // out = x * mask: dx = dout * mask
  return scratch;
}

}  // namespace scratchgpt
