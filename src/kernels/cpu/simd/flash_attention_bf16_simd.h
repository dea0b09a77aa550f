// flash_attention_bf16_simd.h: the fused attention's bf16 bodies on vdpbf16ps
// (flash_attention_bf16_impl.h; flash_attention_bf16_avx512.cpp, AVX512_BF16 in its target:
// call them only on a CPU that has it). Arguments as flash_attention_simd.h's; flash_attention.cpp
// picks them for ExecContext::dtype bf16 at the AVX-512 level.
#pragma once

#include <cstdint>

#include "core/thread_pool.h"
#include "kernels/cpu/gemm.h"
#include "kernels/ref/bf16.h"

namespace scratchgpt::cpu::detail {

void flash_forward_bf16_avx512(float* out, float* lse, const float* qkv, int B, int T, int C,
                               int NH, int tile, ThreadPool& pool);
void flash_backward_bf16_avx512(float* dqkv, const float* dout, const float* out, const float* lse,
                                const float* qkv, int B, int T, int C, int NH, int tile,
                                ThreadPool& pool);

}  // namespace scratchgpt::cpu::detail
