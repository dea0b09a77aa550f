// softmax.h: row-wise softmax, fast: rows threaded and vectorised (AVX-512 or AVX2 exp,
// simd/softmax_impl.h; portable fallback: the reference loop per row). -inf entries become exact
// zeros. Same names and signatures as ref::softmax.h (float). Readable twin: kernels/ref/softmax.h.
#pragma once

#include "core/exec_context.h"
namespace scratchgpt::cpu {

// out (N, C) = softmax(inp (N, C)) along C.
void softmax_forward(const ExecContext& ex, float* out, const float* inp, int N, int C);
// Accumulates: dinp += y * (dout - sum(dout * y)), with y the forward output.
void softmax_backward(const ExecContext& ex, float* dinp, const float* dout, const float* out,
                      int N, int C);

}  // namespace scratchgpt::cpu
