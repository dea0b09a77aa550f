// matvec_q8_simd.h: the per-ISA row kernels of cpu::matvec_q8 (quant_matvec.h): portable
// (matvec_q8_scalar.cpp, ref::dot_q8 itself), AVX2 (matvec_q8_avx2.cpp) and AVX512_VNNI
// (matvec_q8_avx512.cpp) builds of matvec_q8_impl.h, each on the calling thread, all giving the
// bits of ref::dot_q8. Call the SIMD ones only on a CPU that has the set (the avx512 one: VNNI).
#pragma once

#include <cstdint>

namespace scratchgpt::cpu::detail {

// Output rows [o_begin, o_end) of out (N, OC) = Q8 inputs (qx (N, nb*32), dx (N, nb)) . Q8
// weights (qw (OC, nb*32), dw (OC, nb)) + bias.
void matvec_q8_rows_scalar(float* out, const int8_t* qx, const float* dx, const int8_t* qw,
                           const float* dw, const float* bias, int N, int nb, int OC, int o_begin,
                           int o_end);
void matvec_q8_rows_avx2(float* out, const int8_t* qx, const float* dx, const int8_t* qw,
                         const float* dw, const float* bias, int N, int nb, int OC, int o_begin,
                         int o_end);
void matvec_q8_rows_avx512(float* out, const int8_t* qx, const float* dx, const int8_t* qw,
                           const float* dw, const float* bias, int N, int nb, int OC, int o_begin,
                           int o_end);

}  // namespace scratchgpt::cpu::detail
