// layernorm.h: layer normalisation, fast: rows threaded and vectorised (AVX-512 or AVX2,
// simd/layernorm_impl.h; portable fallback: the reference loop per row). dweight/dbias are summed
// in the same pass, per block of 64 rows in row order, and the blocks' sums added in block order
// (the same bits with any thread count; the reference's plain row order differs from it only by
// float rounding). Same names and signatures as ref::layernorm.h (float). Readable twin:
// kernels/ref/layernorm.h.
#pragma once

#include "core/exec_context.h"
namespace scratchgpt::cpu {

// out (N, C); mean, rstd (N) saved for backward; weight, bias (C).
void layernorm_forward(const ExecContext& ex, float* out, float* mean, float* rstd,
                       const float* inp, const float* weight, const float* bias, int N, int C,
                       float eps = 1e-5f);

// Accumulates into dinp (N, C), dweight (C), dbias (C).
void layernorm_backward(const ExecContext& ex, float* dinp, float* dweight, float* dbias,
                        const float* dout, const float* inp, const float* weight, const float* mean,
                        const float* rstd, int N, int C);

}  // namespace scratchgpt::cpu
