// flash_attention_simd.h: the per-ISA bodies of cpu::flash_attention_* (flash_attention.h): the
// tiled kernels of flash_attention_impl.h over plain floats (flash_attention_scalar.cpp), AVX2+FMA
// (flash_attention_avx2.cpp) and AVX-512F (flash_attention_avx512.cpp), each threaded on `pool`;
// flash_attention.cpp picks one with pick(). Call the SIMD ones only on a CPU that has the set.
#pragma once

#include "core/thread_pool.h"
#include "kernels/cpu/gemm.h"

namespace scratchgpt::cpu::detail {

// out (B, T, C), lse (B, NH, T) from qkv (B, T, 3C) with query and key tiles of `tile` rows;
// bf16: the products' inputs rounded to bf16 (--dtype bf16).
void flash_forward_scalar(float* out, float* lse, const float* qkv, int B, int T, int C, int NH,
                          int tile, bool bf16, ThreadPool& pool);
void flash_forward_avx2(float* out, float* lse, const float* qkv, int B, int T, int C, int NH,
                        int tile, bool bf16, ThreadPool& pool);
void flash_forward_avx512(float* out, float* lse, const float* qkv, int B, int T, int C, int NH,
                          int tile, bool bf16, ThreadPool& pool);
// dqkv (B, T, 3C) from dout (B, T, C) and the forward's out and lse.
void flash_backward_scalar(float* dqkv, const float* dout, const float* out, const float* lse,
                           const float* qkv, int B, int T, int C, int NH, int tile, bool bf16,
                           ThreadPool& pool);
void flash_backward_avx2(float* dqkv, const float* dout, const float* out, const float* lse,
                         const float* qkv, int B, int T, int C, int NH, int tile, bool bf16,
                         ThreadPool& pool);
void flash_backward_avx512(float* dqkv, const float* dout, const float* out, const float* lse,
                           const float* qkv, int B, int T, int C, int NH, int tile, bool bf16,
                           ThreadPool& pool);

}  // namespace scratchgpt::cpu::detail
