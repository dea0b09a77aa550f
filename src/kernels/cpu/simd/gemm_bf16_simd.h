// gemm_bf16_simd.h: the per-ISA bodies of detail::gemm_bf16 (gemm.h): the pair GEMM of
// gemm_bf16_impl.h with vdpbf16ps (gemm_bf16_avx512.cpp: AVX512_BF16), with two FMAs a pair
// (gemm_bf16_avx2.cpp) and in plain floats (gemm_bf16_scalar.cpp); gemm.cpp picks one.
#pragma once

#include "core/thread_pool.h"
#include "kernels/cpu/gemm.h"
#include "kernels/ref/bf16.h"

namespace scratchgpt::cpu::detail {

void gemm_bf16_scalar(const GemmArgs& g, ThreadPool& pool);
void gemm_bf16_avx2(const GemmArgs& g, ThreadPool& pool);
void gemm_bf16_avx512(const GemmArgs& g, ThreadPool& pool);  // only on a CPU with AVX512_BF16
// B packed whole ahead for that path's GEMM (gemm.h's gemm_bf16_pack_b), or its rows [k0, k1)
// and columns [j0, j1) in that layout (gemm_bf16_pack_b_part), and its panel width for a product
// of N columns.
void gemm_bf16_pack_b_scalar(const GemmArgs& g, uint32_t* out, int k0, int k1, int j0, int j1,
                             ThreadPool& pool);
void gemm_bf16_pack_b_avx2(const GemmArgs& g, uint32_t* out, int k0, int k1, int j0, int j1,
                           ThreadPool& pool);
void gemm_bf16_pack_b_avx512(const GemmArgs& g, uint32_t* out, int k0, int k1, int j0, int j1,
                             ThreadPool& pool);
int gemm_bf16_nr_scalar(int N);
int gemm_bf16_nr_avx2(int N);
int gemm_bf16_nr_avx512(int N);
// out[i] = bf16(x[i]) for i < n (gemm.h's round_bf16 on one thread; out 4-byte aligned).
void gemm_bf16_round_scalar(uint16_t* out, const float* x, int64_t n);
void gemm_bf16_round_avx2(uint16_t* out, const float* x, int64_t n);
void gemm_bf16_round_avx512(uint16_t* out, const float* x, int64_t n);
// out[c * ld_out + r] = bf16(x[r * ld + c]) for r < rows, c < cols (a block of
// round_bf16_transposed).
void gemm_bf16_round_transposed_scalar(uint16_t* out, int64_t ld_out, const float* x, int64_t ld,
                                       int rows, int cols);
void gemm_bf16_round_transposed_avx2(uint16_t* out, int64_t ld_out, const float* x, int64_t ld,
                                     int rows, int cols);
void gemm_bf16_round_transposed_avx512(uint16_t* out, int64_t ld_out, const float* x, int64_t ld,
                                       int rows, int cols);
// One head's products of cpu::attention_* in bf16 on vdpbf16ps (gemm_bf16_impl.h's
// attention_bf16_impl.h), with gemm_bf16's bits: T and HS multiples of 16, A of the mix zero
// above its diagonal read by rows (cs_a = 1) or below it read by columns (rs_a = 1, upper).
void attention_scores_bf16_avx512(float* s, const float* a, int64_t lda, const float* b,
                                  int64_t ldb, int T, int HS);
void attention_mix_bf16_avx512(bool upper, float* c, int64_t ldc, const float* A, int64_t rs_a,
                               int64_t cs_a, const float* b, int64_t ldb, int T, int HS);

}  // namespace scratchgpt::cpu::detail
