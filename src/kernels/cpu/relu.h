// relu.h: ReLU, fast: ref::relu's loops threaded over fixed chunks (the compiler vectorises them).
// Same names and signatures as ref::relu.h (float). Readable twin: kernels/ref/relu.h.
#pragma once

#include <cstdint>

#include "core/exec_context.h"

namespace scratchgpt::cpu {

void relu_forward(const ExecContext& ex, float* out, const float* inp, int64_t n);
// Writes dinp = dout * (inp > 0) (dinp is not read)
void relu_backward(const ExecContext& ex, float* dinp, const float* inp, const float* dout,
                   int64_t n);

}  // namespace scratchgpt::cpu
