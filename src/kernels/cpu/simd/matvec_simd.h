// matvec_simd.h: the per-ISA row kernels of cpu::matvec_forward (matvec.h): portable
// (matvec_scalar.cpp), AVX2+FMA (matvec_avx2.cpp) and AVX-512F (matvec_avx512.cpp) builds of
// matvec_impl.h, each on the calling thread; matvec.cpp picks one with pick() and threads it. Call
// the SIMD ones only on a CPU that has the set.
#pragma once

#include <cstdint>

namespace scratchgpt::cpu::detail {

// Output rows [o_begin, o_end) of out (N, OC) = inp (N, C) @ weight^T + bias; weight row o at
// weight + o * ldw.
void matvec_rows_scalar(float* out, const float* inp, const float* weight, int64_t ldw,
                        const float* bias, int N, int C, int OC, int o_begin, int o_end);
void matvec_rows_avx2(float* out, const float* inp, const float* weight, int64_t ldw,
                      const float* bias, int N, int C, int OC, int o_begin, int o_end);
void matvec_rows_avx512(float* out, const float* inp, const float* weight, int64_t ldw,
                        const float* bias, int N, int C, int OC, int o_begin, int o_end);

// The same with bf16 weights (the top halves of floats), widened to floats as they are loaded:
// the fp32 kernel's arithmetic on the widened weights, so the same bits.
void matvec_rows_bf16_scalar(float* out, const float* inp, const uint16_t* weight, int64_t ldw,
                             const float* bias, int N, int C, int OC, int o_begin, int o_end);
void matvec_rows_bf16_avx2(float* out, const float* inp, const uint16_t* weight, int64_t ldw,
                           const float* bias, int N, int C, int OC, int o_begin, int o_end);
void matvec_rows_bf16_avx512(float* out, const float* inp, const uint16_t* weight, int64_t ldw,
                             const float* bias, int N, int C, int OC, int o_begin, int o_end);

}  // namespace scratchgpt::cpu::detail
