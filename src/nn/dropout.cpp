// dropout.cpp: Dropout over cpu::dropout and the Rng draws nn.Dropout makes.
#include "nn/dropout.h"

#include <algorithm>

#include "kernels/kernels.h"

namespace scratchgpt {

const float* Dropout::forward(const ExecContext& ex, const float* x, int64_t count, Rng* rng) {
  active = rng != nullptr && p > 0.0f;
  n = count;
  if (!active) return x;
  rng->bernoulli_scalar(mask, n, 1.0 - static_cast<double>(p));  // keep with probability 1-p,
  kernels::dropout_forward(ex, out, mask, x, n,
                           p);  // out = x * keep / (1-p)      drawn as nn.Dropout does
  return out;
}

const float* Dropout::draw_mask(int64_t count, Rng* rng) {
  active = rng != nullptr && p > 0.0f;
  n = count;
  if (!active) return nullptr;
  rng->dropout_noise(mask, n, p);  // keep / (1-p), exactly what nn.Dropout multiplies by
  return mask;
}

const float* Dropout::backward(const ExecContext& ex, float* scratch, const float* dout) const {
  if (!active) return dout;
  // out = x * mask: dx = dout * mask, written (no clearing pass first)
  kernels::dropout_backward(ex, scratch, dout, mask, n, /*accumulate=*/false);
  return scratch;
}

}  // namespace scratchgpt
