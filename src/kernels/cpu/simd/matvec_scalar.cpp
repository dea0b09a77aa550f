// matvec_scalar.cpp: the portable row kernel of matvec.h: one float accumulator per dot product,
// summed in k order, then the bias added; the same arithmetic as ref::matmul_forward run in float
// except that the bias comes last.
#include <cstdint>

#include "kernels/cpu/simd/matvec_simd.h"

namespace scratchgpt::cpu::detail {

void matvec_rows_scalar(float* out, const float* inp, const float* weight, int64_t ldw,
                        const float* bias, int N, int C, int OC, int o_begin, int o_end) {
  for (int o = o_begin; o < o_end; ++o) {
    const float* w = weight + o * ldw;  // (C)
    for (int n = 0; n < N; ++n) {
      const float* x = inp + int64_t{n} * C;  // (C)
      float acc = 0.0f;
      for (int k = 0; k < C; ++k) acc += x[k] * w[k];
      out[int64_t{n} * OC + o] = bias ? acc + bias[o] : acc;
    }
  }
}

}  // namespace scratchgpt::cpu::detail
