// adamw_simd.h: the per-ISA kernels of cpu::adamw (adamw.h): the vector part of the AdamW step of
// adamw_impl.h compiled for AVX2+FMA (adamw_avx2.cpp) and AVX-512F (adamw_avx512.cpp), each on the
// calling thread; adamw.cpp picks one with pick() and threads it. Call only on a CPU that has the
// set.
#pragma once

#include <cstdint>

#include "kernels/ref/adamw.h"

namespace scratchgpt::cpu::detail {

// param, grad, m, v (n): elements [0, n - n % lanes), bit for bit the reference's; returns how
// many it did (the caller runs the reference on the rest). stream_param: write the parameters with
// non-temporal stores where param is aligned to the vector (the same bits; adamw.cpp says when).
int64_t adamw_avx2(float* param, const float* grad, float* m, float* v, int64_t n, float beta1,
                   float beta2, float eps, const ref::AdamWScalars<float>& s, float grad_scale,
                   bool stream_param);
int64_t adamw_avx512(float* param, const float* grad, float* m, float* v, int64_t n, float beta1,
                     float beta2, float eps, const ref::AdamWScalars<float>& s, float grad_scale,
                     bool stream_param);

}  // namespace scratchgpt::cpu::detail
