// gelu.h: GELU (tanh approximation), fast: AVX2 with a vectorised tanh (portable fallback: the
// reference loop), threaded over fixed chunks so any thread count gives the same bits.
// Same names and signatures as ref::gelu.h (float). Readable twin: kernels/ref/gelu.h.
#pragma once

#include <cstdint>

namespace scratchgpt::cpu {

// out (n) = 0.5 x (1 + tanh(sqrt(2/pi) (x + 0.044715 x^3)))
void gelu_forward(float* out, const float* inp, int64_t n);
// Accumulates: dinp += dout * gelu'(inp)
void gelu_backward(float* dinp, const float* inp, const float* dout, int64_t n);

}  // namespace scratchgpt::cpu
