// matvec_q8_simd.h: the per-ISA panel kernels of cpu::quant_matvec_forward's Q8 path: portable
// (matvec_q8_scalar.cpp: each row unpacked and ref::dot_q8), AVX2 (matvec_q8_avx2.cpp) and
// AVX512_VNNI (matvec_q8_avx512.cpp) builds of matvec_q8_impl.h, each on the calling thread, all
// giving the bits of ref::dot_q8. Call the SIMD ones only on a CPU that has the set (the avx512
// one: VNNI).
#pragma once

#include <cstdint>

#include "kernels/ref/quant.h"  // the SIMD units quantise a last partial block with it

namespace scratchgpt::cpu::detail {

// Panels [p_begin, p_end) (output rows [16 p_begin, 16 p_end) below OC) of out (N, OC) = Q8
// inputs . Q8 weights + bias (bias may be null). The inputs: qx (N, nb*32), dx (N, nb) from
// ref::quantize_q8, cx (N, nb) = -128 * each block's sum of qx. The weights, packed by
// quant_matvec.cpp: pw (panels, nb, 8, 16, 4) the bytes w + 128, each panel's 16 rows interleaved
// by 4, and pd (panels, nb, 16) their scales (0 past OC).
using Q8PanelsFn = void (*)(float* out, const int8_t* qx, const float* dx, const int32_t* cx,
                            const uint8_t* pw, const float* pd, const float* bias, int N, int nb,
                            int OC, int p_begin, int p_end);
void matvec_q8_panels_scalar(float* out, const int8_t* qx, const float* dx, const int32_t* cx,
                             const uint8_t* pw, const float* pd, const float* bias, int N, int nb,
                             int OC, int p_begin, int p_end);
void matvec_q8_panels_avx2(float* out, const int8_t* qx, const float* dx, const int32_t* cx,
                           const uint8_t* pw, const float* pd, const float* bias, int N, int nb,
                           int OC, int p_begin, int p_end);
void matvec_q8_panels_avx512(float* out, const int8_t* qx, const float* dx, const int32_t* cx,
                             const uint8_t* pw, const float* pd, const float* bias, int N, int nb,
                             int OC, int p_begin, int p_end);

// Input rows [n_begin, n_end) of x (N, C) -> qx (N, nb*32), dx (N, nb) as ref::quantize_q8 makes
// them, and cx (N, nb) = -128 * each block's sum of qx (the AVX-512 product's correction).
using Q8QuantizeFn = void (*)(const float* x, int C, int8_t* qx, float* dx, int32_t* cx,
                              int n_begin, int n_end);
void quantize_q8_rows_scalar(const float* x, int C, int8_t* qx, float* dx, int32_t* cx,
                             int n_begin, int n_end);
void quantize_q8_rows_avx2(const float* x, int C, int8_t* qx, float* dx, int32_t* cx,
                           int n_begin, int n_end);
void quantize_q8_rows_avx512(const float* x, int C, int8_t* qx, float* dx, int32_t* cx,
                             int n_begin, int n_end);

}  // namespace scratchgpt::cpu::detail
