// gelu.h: GELU, the tanh approximation (GPT-2) and the exact form (nanoGPT, x Phi(x)), fast: AVX2
// or AVX-512 with a vectorised exp (the tanh form as x / (1 + e^{-2u})) or erfc (gelu_impl.h;
// portable fallback: the reference loop), threaded over fixed chunks. Each element's result
// depends on that element alone, so any thread count gives the same bits.
// Same names and signatures as ref::gelu.h (float). Readable twin: kernels/ref/gelu.h.
#pragma once

#include <cstdint>

#include "core/exec_context.h"

namespace scratchgpt::cpu {

// out (n) = 0.5 x (1 + tanh(sqrt(2/pi) (x + 0.044715 x^3)))
void gelu_forward(const ExecContext& ex, float* out, const float* inp, int64_t n);
// Writes dinp = dout * gelu'(inp) (dinp is not read)
void gelu_backward(const ExecContext& ex, float* dinp, const float* inp, const float* dout,
                   int64_t n);

// out (n) = 0.5 x (1 + erf(x / sqrt 2))
void gelu_exact_forward(const ExecContext& ex, float* out, const float* inp, int64_t n);
// Writes dinp = dout * gelu_exact'(inp) (dinp is not read)
void gelu_exact_backward(const ExecContext& ex, float* dinp, const float* inp, const float* dout,
                         int64_t n);

}  // namespace scratchgpt::cpu
