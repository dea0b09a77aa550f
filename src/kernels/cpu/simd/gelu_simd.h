// gelu_simd.h: the per-ISA kernels of cpu::gelu_* and cpu::gelu_exact_* (gelu.h): the GELU loops of
// gelu_impl.h compiled for AVX2+FMA (gelu_avx2.cpp) and AVX-512F (gelu_avx512.cpp), each over one
// range on the calling thread; gelu.cpp picks one with pick() and threads it. Call only on a CPU
// that has the set.
#pragma once

#include <cstdint>

namespace scratchgpt::cpu::detail {

// out (n) = gelu(inp), the tanh form; dinp (n) = dout * gelu'(inp) (dinp is not read).
void gelu_forward_avx2(float* out, const float* inp, int64_t n);
void gelu_forward_avx512(float* out, const float* inp, int64_t n);
void gelu_backward_avx2(float* dinp, const float* inp, const float* dout, int64_t n);
void gelu_backward_avx512(float* dinp, const float* inp, const float* dout, int64_t n);

// The same for the exact form, x Phi(x).
void gelu_exact_forward_avx2(float* out, const float* inp, int64_t n);
void gelu_exact_forward_avx512(float* out, const float* inp, int64_t n);
void gelu_exact_backward_avx2(float* dinp, const float* inp, const float* dout, int64_t n);
void gelu_exact_backward_avx512(float* dinp, const float* inp, const float* dout, int64_t n);

}  // namespace scratchgpt::cpu::detail
