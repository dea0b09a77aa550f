// bf16.h: bfloat16, the top half of a float (8 exponent bits, 7 mantissa bits), the scalar
// reference: conversion rounded to nearest even, and the matrix products of --dtype bf16 training,
// whose inputs are rounded to bf16 and whose sums stay in F (fp32 in the engine, double in tests).
// A product of two bf16 values is exact in fp32 (8 + 8 significant bits), so these are the
// numbers of AVX512_BF16's vdpbf16ps up to the order of the sums. Fast twins: cpu::matmul and
// cpu::attention with ExecContext::dtype = kBf16. gemm_bf16 below is the GEMM under cpu::matmul's
// bf16 products in its exact order of sums. Leaves out: denormals flushed (vdpbf16ps flushes
// them; a rounded value this small does not occur in training).
#pragma once

#include <cstdint>
#include <cstring>

namespace scratchgpt::ref {

// bf16 <-> float: the top 16 bits of the float, rounded to nearest even; NaN stays NaN (quiet);
// a float past bf16's largest finite value rounds to infinity, as the hardware's does.
inline uint16_t bf16_from_float(float x) {
  uint32_t u;
  std::memcpy(&u, &x, sizeof u);
  if ((u & 0x7fffffffu) > 0x7f800000u) return static_cast<uint16_t>((u >> 16) | 0x40u);
  u += 0x7fffu + ((u >> 16) & 1u);
  return static_cast<uint16_t>(u >> 16);
}
inline float float_from_bf16(uint16_t h) {
  const uint32_t u = uint32_t{h} << 16;
  float f;
  std::memcpy(&f, &u, sizeof f);
  return f;
}
// x rounded to the nearest bf16 value, kept as a float (its low 16 bits zero).
inline float round_bf16(float x) { return float_from_bf16(bf16_from_float(x)); }

// out (N, OC) = bf16(inp) (N, C) @ bf16(weight) (OC, C)^T + bias (OC): ref::matmul_forward with
// both inputs rounded, summed in F, the bias (fp32, not rounded) first.
template <typename F>
void matmul_forward_bf16(F* out, const float* inp, const float* weight, const float* bias, int N,
                         int C, int OC) {
  for (int n = 0; n < N; ++n)
    for (int o = 0; o < OC; ++o) {
      F acc = bias ? F(bias[o]) : F(0);
      for (int c = 0; c < C; ++c)
        acc += F(round_bf16(inp[int64_t{n} * C + c])) * F(round_bf16(weight[int64_t{o} * C + c]));
      out[int64_t{n} * OC + o] = acc;
    }
}

// The backward of matmul_forward_bf16, written (=) not accumulated: dinp (N, C) = bf16(dout) @
// bf16(W); dweight (OC, C) = bf16(dout)^T @ bf16(inp); dbias (OC) = sum over n of dout, not
// rounded (a reduction, fp32 as in torch.autocast). Any output may be null.
template <typename F>
void matmul_backward_bf16(F* dinp, F* dweight, F* dbias, const float* dout, const float* inp,
                          const float* weight, int N, int C, int OC) {
  auto d = [&](int n, int o) { return F(round_bf16(dout[int64_t{n} * OC + o])); };
  if (dinp)
    for (int n = 0; n < N; ++n)
      for (int c = 0; c < C; ++c) {
        F acc = 0;
        for (int o = 0; o < OC; ++o) acc += d(n, o) * F(round_bf16(weight[int64_t{o} * C + c]));
        dinp[int64_t{n} * C + c] = acc;
      }
  if (dweight)
    for (int o = 0; o < OC; ++o)
      for (int c = 0; c < C; ++c) {
        F acc = 0;
        for (int n = 0; n < N; ++n) acc += d(n, o) * F(round_bf16(inp[int64_t{n} * C + c]));
        dweight[int64_t{o} * C + c] = acc;
      }
  if (dbias)
    for (int o = 0; o < OC; ++o) {
      F acc = 0;
      for (int n = 0; n < N; ++n) acc += F(dout[int64_t{n} * OC + o]);
      dbias[o] = acc;
    }
}

// C (M, N) = bias + A B (init; bias may be null) or C += A B, as --dtype bf16's fast GEMM sums it
// (cpu::detail::gemm_bf16, vdpbf16ps's order): A(i, k) = A[i * rs_a + k * cs_a] and B(k, j) =
// B[k * rs_b + j * cs_b] rounded to bf16, taken in pairs (k = 2p, 2p + 1; past K a 0), and per
// C element s = (init ? 0 : C); s += A(i, 2p + 1) B(2p + 1, j); s += A(i, 2p) B(2p, j) for each p
// in order; C = bias + s (init with a bias) or s. Each product is exact in fp32, so the fast paths
// give these bits whether or not they fuse the steps.
inline void gemm_bf16(int M, int N, int K, const float* A, int64_t rs_a, int64_t cs_a,
                      const float* B, int64_t rs_b, int64_t cs_b, float* C, int64_t ldc,
                      bool init, const float* bias) {
  auto a = [&](int i, int k) { return k < K ? round_bf16(A[i * rs_a + k * cs_a]) : 0.0f; };
  auto b = [&](int k, int j) { return k < K ? round_bf16(B[k * rs_b + j * cs_b]) : 0.0f; };
  for (int i = 0; i < M; ++i)
    for (int j = 0; j < N; ++j) {
      float s = init ? 0.0f : C[i * ldc + j];
      for (int k = 0; k < K; k += 2) {
        s += a(i, k + 1) * b(k + 1, j);
        s += a(i, k) * b(k, j);
      }
      C[i * ldc + j] = init && bias ? bias[j] + s : s;
    }
}

}  // namespace scratchgpt::ref
