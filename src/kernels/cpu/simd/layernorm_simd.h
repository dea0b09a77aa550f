// layernorm_simd.h: the per-ISA kernels of cpu::layernorm (layernorm.h): the layer normalisation
// rows of layernorm_impl.h compiled for AVX2+FMA (layernorm_avx2.cpp) and AVX-512F
// (layernorm_avx512.cpp), each on the calling thread; layernorm.cpp picks one with pick() and
// threads it. Call only on a CPU that has the set.
#pragma once

#include <cstdint>

namespace scratchgpt::cpu::detail {

// n rows of stride C: y = (x - mean) * rstd * w + b; mean[i], rstd[i] of row i; w, b (C).
void layernorm_forward_rows_avx2(float* y, float* mean, float* rstd, const float* x, const float* w,
                                 const float* b, int64_t n, int C, float eps);
void layernorm_forward_rows_avx512(float* y, float* mean, float* rstd, const float* x,
                                   const float* w, const float* b, int64_t n, int C, float eps);

// n rows of the backward: dx += rstd * (g - mean(g) - xhat * mean(g * xhat)), and the parameter
// gradients' sums dw (C) += dy * xhat, db (C) += dy, row after row.
void layernorm_backward_rows_avx2(float* dx, float* dw, float* db, const float* dy, const float* x,
                                  const float* w, const float* mean, const float* rstd, int64_t n,
                                  int C);
void layernorm_backward_rows_avx512(float* dx, float* dw, float* db, const float* dy,
                                    const float* x, const float* w, const float* mean,
                                    const float* rstd, int64_t n, int C);

}  // namespace scratchgpt::cpu::detail
