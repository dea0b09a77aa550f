// matmul_onednn.h: cpu::matmul's products through oneDNN (see matmul_backend.h); only
// matmul.cpp calls these. Without -DSCRATCHGPT_DNNL=ON they throw scratchgpt::Error.
#pragma once

#include "core/thread_pool.h"

namespace scratchgpt::cpu::onednn {

bool available();

// True when oneDNN's sgemm runs its AVX2 kernels (a CPU without AVX-512, or DNNL_MAX_CPU_ISA=AVX2);
// false without oneDNN.
bool below_avx512();

// out (N, OC) = inp (N, C) @ weight (OC, C)^T + bias (OC) (bias may be null).
void matmul_forward(float* out, const float* inp, const float* weight, const float* bias, int N,
                    int C, int OC, ThreadPool& pool);

// dinp (N, C) += dout @ weight (= when !accumulate_dinp);  dweight (OC, C) += dout^T @ inp
// (= when !accumulate_dweight); either may be null.
void matmul_backward_data(float* dinp, float* dweight, const float* dout, const float* inp,
                          const float* weight, int N, int C, int OC, ThreadPool& pool,
                          bool accumulate_dinp, bool accumulate_dweight);

}  // namespace scratchgpt::cpu::onednn
