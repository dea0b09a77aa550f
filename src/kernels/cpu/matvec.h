// matvec.h: out (N, OC) = inp (N, C) @ weight (OC, C)^T + bias for a handful of rows N (batch-1
// decoding: N = 1), where the packed GEMM (gemm.h) would spend more time packing the weight than
// multiplying. Each output is a dot product of two contiguous rows, vectorised along C (AVX-512,
// AVX2+FMA or portable scalar, picked at run time, see simd.h) and threaded over OC in fixed
// chunks. Every dot product runs the same instruction sequence whatever the thread count or the
// row grouping, so 1 and N threads give bitwise-identical results.
// Leaves out: backward (decoding never needs it). Readable twin: kernels/ref/matmul.h.
#pragma once

#include <cstdint>

#include "core/exec_context.h"

namespace scratchgpt::cpu {

// Largest N for which matmul_forward uses matvec_forward: at N = 8 it still beat the packed GEMM
// by 1.1-2.3x on the shapes of bench/matvec_bench.cpp (1 thread), at N = 1 by 4-10x.
inline constexpr int kMatvecMaxN = 8;

// out (N, OC) = inp (N, C) @ weight (OC, C)^T + bias (OC) (bias may be null); N in [1, 8].
void matvec_forward(const ExecContext& ex, float* out, const float* inp, const float* weight,
                    const float* bias, int N, int C, int OC);

// The same on the calling thread only, with weight row o at weight + o * ldw (ldw >= C), for
// kernels that already run inside a parallel_for (attention decoding reads one head's slice of
// each cached key row). Same bits as matvec_forward.
void matvec_forward_serial(SimdLevel level, float* out, const float* inp, const float* weight,
                           int64_t ldw, const float* bias, int N, int C, int OC);

}  // namespace scratchgpt::cpu
