// matvec_q8_scalar.cpp: the portable kernels of matvec_q8_simd.h: each weight row unpacked from
// its panel back to a plain row, then ref::dot_q8 per output, the bias last; the inputs quantised
// by ref::quantize_q8.
#include <cstdint>
#include <vector>

#include "kernels/cpu/simd/matvec_q8_simd.h"
#include "kernels/ref/quant.h"

namespace scratchgpt::cpu::detail {

void matvec_q8_panels_scalar(float* out, const int8_t* qx, const float* dx, const int32_t*,
                             const uint8_t* pw, const float* pd, const float* bias, int N, int nb,
                             int OC, int p_begin, int p_end) {
  std::vector<int8_t> qw(static_cast<size_t>(nb) * 32);  // (nb*32) one row
  std::vector<float> dw(nb);                              // (nb)
  for (int o = p_begin * 16; o < p_end * 16 && o < OC; ++o) {
    const uint8_t* panel = pw + int64_t{o / 16} * nb * 512;
    for (int b = 0; b < nb; ++b) {
      for (int k = 0; k < 32; ++k)  // byte k % 4 of row o % 16 in step k / 4 of block b
        qw[b * 32 + k] = static_cast<int8_t>(panel[b * 512 + (k / 4) * 64 + (o % 16) * 4 + k % 4] ^ 0x80);
      dw[b] = pd[(int64_t{o / 16} * nb + b) * 16 + o % 16];
    }
    for (int n = 0; n < N; ++n) {
      const float s = ref::dot_q8(qw.data(), dw.data(), qx + int64_t{n} * nb * 32, dx + int64_t{n} * nb, nb);
      out[int64_t{n} * OC + o] = bias ? s + bias[o] : s;
    }
  }
}

void quantize_q8_rows_scalar(const float* x, int C, int8_t* qx, float* dx, int32_t* cx,
                             int n_begin, int n_end) {
  const int nb = ref::q8_blocks(C);
  for (int64_t n = n_begin; n < n_end; ++n) {
    int8_t* q = qx + n * nb * 32;
    ref::quantize_q8(x + n * C, C, q, dx + n * nb);
    for (int b = 0; b < nb; ++b) {
      int32_t sum = 0;
      for (int k = 0; k < 32; ++k) sum += q[b * 32 + k];
      cx[n * nb + b] = -128 * sum;
    }
  }
}

}  // namespace scratchgpt::cpu::detail
