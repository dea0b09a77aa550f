// quant.h: weights stored in fewer bytes for decoding, the scalar reference: bf16 (the top half of
// a float, rounded to nearest even) and Q8 (llama.cpp's Q8_0: blocks of 32 int8 with one float
// scale, symmetric), and the matvec of each, rounding exactly as the fast kernels do
// (kernels/cpu/quant_matvec.h). Leaves out: fp16 scales, 4-bit formats, backward.
#pragma once

#include <cmath>
#include <cstdint>
#include <cstring>

#include "kernels/ref/bf16.h"

namespace scratchgpt::ref {

// out (N, OC) = inp (N, C) @ widen(weight (OC, C))^T + bias, summed in k order in F, bias last.
template <typename F>
void matvec_bf16_forward(F* out, const F* inp, const uint16_t* weight, const F* bias, int N, int C,
                         int OC) {
  for (int n = 0; n < N; ++n)
    for (int o = 0; o < OC; ++o) {
      F acc = 0;
      for (int k = 0; k < C; ++k)
        acc += inp[int64_t{n} * C + k] * F(float_from_bf16(weight[int64_t{o} * C + k]));
      out[int64_t{n} * OC + o] = bias ? acc + bias[o] : acc;
    }
}

inline constexpr int kQ8Block = 32;
// Blocks of a row of C values (the last one zero-padded).
inline int q8_blocks(int C) { return (C + kQ8Block - 1) / kQ8Block; }

// One block of n <= 32 floats -> q (32 int8, those past n 0) and its scale d = max|x| / 127,
// q = round_half_even(x * (1/d)) (q = 0 where d = 0), so x ~ d * q with |q| <= 127.
inline void quantize_q8_block(const float* x, int n, int8_t* q, float* d) {
  float amax = 0.0f;
  for (int k = 0; k < n; ++k) amax = std::fmax(amax, std::fabs(x[k]));
  *d = amax / 127.0f;
  const float id = *d != 0.0f ? 1.0f / *d : 0.0f;
  for (int k = 0; k < kQ8Block; ++k)
    q[k] = k < n ? static_cast<int8_t>(std::nearbyint(x[k] * id)) : int8_t{0};
}

// One row of C floats -> q (q8_blocks(C) * 32 int8, the padding 0) and d (q8_blocks(C) scales),
// block by block: weights (once, at load) and activations (every call) alike.
inline void quantize_q8(const float* x, int C, int8_t* q, float* d) {
  for (int b = 0; b < q8_blocks(C); ++b) {
    const int k0 = b * kQ8Block;
    quantize_q8_block(x + k0, C - k0 < kQ8Block ? C - k0 : kQ8Block, q + k0, d + b);
  }
}

// The dot product of two Q8 rows of nb blocks: each block's integer sum (exact) times
// (dw[b] * dx[b]) is fused-multiply-added into one float accumulator, block after block.
inline float dot_q8(const int8_t* qw, const float* dw, const int8_t* qx, const float* dx, int nb) {
  float acc = 0.0f;
  for (int b = 0; b < nb; ++b) {
    int32_t s = 0;
    for (int k = b * kQ8Block; k < (b + 1) * kQ8Block; ++k) s += int32_t{qw[k]} * int32_t{qx[k]};
    acc = std::fma(static_cast<float>(s), dw[b] * dx[b], acc);
  }
  return acc;
}

// out (N, OC) = Q8(inp (N, C)) . Q8 weight + bias: qw (OC, q8_blocks(C) * 32) and dw
// (OC, q8_blocks(C)) from quantize_q8 of each weight row; each input row is quantised the same
// way into qx (q8_blocks(C) * 32) and dx (q8_blocks(C)), the caller's scratch.
inline void matvec_q8_forward(float* out, const float* inp, const int8_t* qw, const float* dw,
                              const float* bias, int N, int C, int OC, int8_t* qx, float* dx) {
  const int nb = q8_blocks(C);
  for (int n = 0; n < N; ++n) {
    quantize_q8(inp + int64_t{n} * C, C, qx, dx);
    for (int o = 0; o < OC; ++o) {
      const float s = dot_q8(qw + int64_t{o} * nb * kQ8Block, dw + int64_t{o} * nb, qx, dx, nb);
      out[int64_t{n} * OC + o] = bias ? s + bias[o] : s;
    }
  }
}

}  // namespace scratchgpt::ref
