// matvec_scalar.cpp: the portable row kernels of matvec.h: one float accumulator per dot product,
// summed in k order, then the bias added; the same arithmetic as ref::matmul_forward run in float
// except that the bias comes last. bf16 weights are widened to floats (exact) as they are read.
#include <cstdint>
#include <cstring>

#include "kernels/cpu/simd/matvec_simd.h"

namespace scratchgpt::cpu::detail {

namespace {

float widen(float w) { return w; }
float widen(uint16_t w) {
  const uint32_t bits = uint32_t{w} << 16;
  float f;
  std::memcpy(&f, &bits, sizeof f);
  return f;
}

template <class WT>
void rows_scalar(float* out, const float* inp, const WT* weight, int64_t ldw, const float* bias,
                 int N, int C, int OC, int o_begin, int o_end) {
  for (int o = o_begin; o < o_end; ++o) {
    const WT* w = weight + o * ldw;  // (C)
    for (int n = 0; n < N; ++n) {
      const float* x = inp + int64_t{n} * C;  // (C)
      float acc = 0.0f;
      for (int k = 0; k < C; ++k) acc += x[k] * widen(w[k]);
      out[int64_t{n} * OC + o] = bias ? acc + bias[o] : acc;
    }
  }
}

}  // namespace

void matvec_rows_scalar(float* out, const float* inp, const float* weight, int64_t ldw,
                        const float* bias, int N, int C, int OC, int o_begin, int o_end) {
  rows_scalar(out, inp, weight, ldw, bias, N, C, OC, o_begin, o_end);
}

void matvec_rows_bf16_scalar(float* out, const float* inp, const uint16_t* weight, int64_t ldw,
                             const float* bias, int N, int C, int OC, int o_begin, int o_end) {
  rows_scalar(out, inp, weight, ldw, bias, N, C, OC, o_begin, o_end);
}

}  // namespace scratchgpt::cpu::detail
