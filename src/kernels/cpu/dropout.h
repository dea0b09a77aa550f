// dropout.h: inverted dropout, fast: ref::dropout's loops threaded over fixed chunks.
// Same names and signatures as ref::dropout.h (float). Readable twin: kernels/ref/dropout.h.
#pragma once

#include <cstdint>

#include "core/exec_context.h"

namespace scratchgpt::cpu {

// keep (n) in mask: 1 kept, 0 dropped; turned in place into the scaled mask, out = inp * mask.
void dropout_forward(const ExecContext& ex, float* out, float* mask, const float* inp, int64_t n,
                     float p);
// Accumulates: dinp += dout * mask; or writes dinp = 0 + dout * mask when !accumulate.
void dropout_backward(const ExecContext& ex, float* dinp, const float* dout, const float* mask,
                      int64_t n, bool accumulate = true);

}  // namespace scratchgpt::cpu
