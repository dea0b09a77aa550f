// softmax_simd.h: the per-ISA kernels of cpu::softmax (softmax.h): the softmax rows of
// softmax_impl.h compiled for AVX2+FMA (softmax_avx2.cpp) and AVX-512F (softmax_avx512.cpp), each
// on the calling thread; softmax.cpp picks one with pick() and threads it. Call only on a CPU that
// has the set.
#pragma once

namespace scratchgpt::cpu::detail {

// One row: y (C) = softmax(x (C)).
void softmax_row_avx2(float* y, const float* x, int C);
void softmax_row_avx512(float* y, const float* x, int C);

// One row: dx (C) += y * (dy - sum(dy * y)).
void softmax_back_row_avx2(float* dx, const float* dy, const float* y, int C);
void softmax_back_row_avx512(float* dx, const float* dy, const float* y, int C);

}  // namespace scratchgpt::cpu::detail
