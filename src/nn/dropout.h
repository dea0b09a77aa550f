// dropout.h: Dropout (torch.nn.Dropout): in training each element is kept with probability 1-p
// and scaled by 1/(1-p); in eval mode (no Rng) it is the identity and touches no memory.
// The keep mask comes from Rng::bernoulli_scalar, as nn.Dropout draws it, so a seeded run drops
// the same elements PyTorch drops.
// Leaves out: owning memory (mask and output are planned activations). Kernel: kernels::dropout_*.
#pragma once

#include <cstdint>

#include "core/exec_context.h"
#include "core/rng.h"
#include "nn/slab_planner.h"

namespace scratchgpt {

struct Dropout {
  float p = 0.0f;
  float* mask = nullptr;  // (n) scaled keep mask (0 or 1/(1-p)), planned only when p > 0
  float* out = nullptr;   // (n) planned only when p > 0 and the output is materialised
  bool active = false;    // the last forward dropped (training with p > 0)
  int64_t n = 0;

  Dropout() = default;
  explicit Dropout(float prob) : p(prob) {}

  // The mask is kept for backward (masks); the output may be transient (outputs can be shared
  // scratch). mask_only: the kernel applies the mask itself (attention weights).
  void plan(SlabPlanner& masks, SlabPlanner& outputs, int64_t max_n, bool mask_only = false) {
    if (p <= 0.0f) return;
    mask = masks.take(max_n);
    if (!mask_only) out = outputs.take(max_n);
  }

  // Training (rng != null, p > 0): draws the mask and returns out = x * mask. Otherwise returns x.
  const float* forward(const ExecContext& ex, const float* x, int64_t count, Rng* rng);
  // Draws a fresh scaled mask of count elements and returns it, or nullptr in eval mode.
  const float* draw_mask(int64_t count, Rng* rng);
  // Gradient with respect to the input: dout * mask written into scratch (n), or dout itself when
  // the last forward did not drop.
  const float* backward(const ExecContext& ex, float* scratch, const float* dout) const;
};

}  // namespace scratchgpt
