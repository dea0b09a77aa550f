// residual.h: the residual connection, fast: ref::residual's loops threaded over fixed chunks.
// Same names and signatures as ref::residual.h (float); out may alias a or b.
// Readable twin: kernels/ref/residual.h.
#pragma once

#include <cstdint>

#include "core/exec_context.h"

namespace scratchgpt::cpu {

void residual_forward(const ExecContext& ex, float* out, const float* a, const float* b, int64_t n);
// The backward (ref::residual_backward) has no fast twin: the model's Block lets both branches
// read dout in place and copies it once (cpu/fill.h) into the gradient it builds up.

}  // namespace scratchgpt::cpu
