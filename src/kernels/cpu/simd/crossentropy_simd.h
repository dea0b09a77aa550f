// crossentropy_simd.h: the per-ISA kernels of cpu::crossentropy (crossentropy.h): the cross-entropy
// rows of crossentropy_impl.h compiled for AVX2+FMA (crossentropy_avx2.cpp) and AVX-512F
// (crossentropy_avx512.cpp), each on the calling thread; crossentropy.cpp picks one with pick() and
// threads it. Call only on a CPU that has the set.
#pragma once

namespace scratchgpt::cpu::detail {

// One row: p (V) = softmax(x (V)), *loss = -log p[target].
void crossentropy_row_avx2(float* loss, float* p, const float* x, int target, int V);
void crossentropy_row_avx512(float* loss, float* p, const float* x, int target, int V);

// One row: d (V) = k * (p - onehot(target)) (d is not read).
void crossentropy_back_row_avx2(float* d, const float* p, int target, float k, int V);
void crossentropy_back_row_avx512(float* d, const float* p, int target, float k, int V);

}  // namespace scratchgpt::cpu::detail
