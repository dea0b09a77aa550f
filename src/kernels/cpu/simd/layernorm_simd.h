// layernorm_simd.h: the per-ISA kernels of cpu::layernorm (layernorm.h): the layer normalisation
// rows of layernorm_impl.h compiled for AVX2+FMA (layernorm_avx2.cpp) and AVX-512F
// (layernorm_avx512.cpp), each on the calling thread; layernorm.cpp picks one with pick() and
// threads it. Call only on a CPU that has the set.
#pragma once

namespace scratchgpt::cpu::detail {

// One row: y (C) = (x - mean) * rstd * w + b; *mean, *rstd of x (C); w, b (C).
void layernorm_row_avx2(float* y, float* mean, float* rstd, const float* x, const float* w,
                        const float* b, int C, float eps);
void layernorm_row_avx512(float* y, float* mean, float* rstd, const float* x, const float* w,
                          const float* b, int C, float eps);

// One row of the backward: dx (C) += rstd * (g - mean(g) - xhat * mean(g * xhat)), and the
// parameter gradients' sums dw (C) += dy * xhat, db (C) += dy.
void layernorm_back_row_avx2(float* dx, float* dw, float* db, const float* dy, const float* x,
                             const float* w, float mean, float rstd, int C);
void layernorm_back_row_avx512(float* dx, float* dw, float* db, const float* dy, const float* x,
                               const float* w, float mean, float rstd, int C);

}  // namespace scratchgpt::cpu::detail
