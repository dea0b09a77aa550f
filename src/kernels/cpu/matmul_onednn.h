// matmul_onednn.h: cpu::matmul's products through oneDNN (see matmul_backend.h); only
// matmul.cpp calls these. Without -DSCRATCHGPT_DNNL=ON they throw scratchgpt::Error.
#pragma once

#include <cstdint>

#include "core/thread_pool.h"

namespace scratchgpt::cpu::onednn {

bool available();

// True when oneDNN's sgemm runs its AVX2 kernels (a CPU without AVX-512, or DNNL_MAX_CPU_ISA=AVX2);
// false without oneDNN.
bool below_avx512();

// True when oneDNN's bf16 matmul runs on AMX tiles on this CPU (Sapphire Rapids and later;
// DNNL_MAX_CPU_ISA can cap it); false without oneDNN.
bool has_amx();

// True when oneDNN has a bf16 matmul on this CPU (2.6: AVX-512 at least; not on an AVX2-only
// CPU, which reaches --dtype bf16 only with SCRATCHGPT_BF16_ANY_CPU=1); false without oneDNN.
bool has_bf16();

// --dtype bf16 through oneDNN's matmul primitive (its brgemm kernels: AMX tiles where the CPU has
// them, else vdpbf16ps): C (M, N) = bias + A B^T, or C += A B^T when accumulate (bias unused),
// A (M, K) and BT (N, K) bf16 and row-major, C fp32 with rows ldc apart. Tiles of C whose sizes
// depend on the shape only, each one single-threaded call over the whole K on the pool's threads,
// so 1 and N threads give the same bits. Sums in oneDNN's order: not gemm_bf16's bits.
void gemm_bf16_nt(int M, int N, int K, const uint16_t* A, const uint16_t* BT, float* C, int64_t ldc,
                  bool accumulate, const float* bias, ThreadPool& pool);

// out (N, OC) = inp (N, C) @ weight (OC, C)^T + bias (OC) (bias may be null).
void matmul_forward(float* out, const float* inp, const float* weight, const float* bias, int N,
                    int C, int OC, ThreadPool& pool);

// dinp (N, C) += dout @ weight (= when !accumulate_dinp);  dweight (OC, C) += dout^T @ inp
// (= when !accumulate_dweight); either may be null.
void matmul_backward_data(float* dinp, float* dweight, const float* dout, const float* inp,
                          const float* weight, int N, int C, int OC, ThreadPool& pool,
                          bool accumulate_dinp, bool accumulate_dweight);

}  // namespace scratchgpt::cpu::onednn
