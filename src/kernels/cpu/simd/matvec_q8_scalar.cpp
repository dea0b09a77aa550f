// matvec_q8_scalar.cpp: the portable row kernel of matvec_q8_simd.h: ref::dot_q8 per output, the
// bias last.
#include <cstdint>

#include "kernels/cpu/simd/matvec_q8_simd.h"
#include "kernels/ref/quant.h"

namespace scratchgpt::cpu::detail {

void matvec_q8_rows_scalar(float* out, const int8_t* qx, const float* dx, const int8_t* qw,
                           const float* dw, const float* bias, int N, int nb, int OC, int o_begin,
                           int o_end) {
  for (int o = o_begin; o < o_end; ++o)
    for (int n = 0; n < N; ++n) {
      const float s = ref::dot_q8(qw + int64_t{o} * nb * 32, dw + int64_t{o} * nb,
                                  qx + int64_t{n} * nb * 32, dx + int64_t{n} * nb, nb);
      out[int64_t{n} * OC + o] = bias ? s + bias[o] : s;
    }
}

}  // namespace scratchgpt::cpu::detail
