// attention.cu: causal self-attention with the T x T weights kept (the "stored" kernel of
// kernels/ref/attention.h). Per batch row b, every head at once through cuBLAS's strided batched
// products, straight on the (B, T, 3C) qkv layout (head h's q at column h*HS, row stride 3C):
//   S = q k^T / sqrt(HS)    att = causal softmax(S)    y = att v
// and backward
//   datt = dy v^T   dv = att^T dy   dS = att * (datt - rowsum(att * datt)) / sqrt(HS)
//   dq = dS k       dk = dS^T q
// In cuBLAS's column-major terms a row-major (T, HS) block with row stride ld is an (HS, T)
// matrix with leading dimension ld, so each product is written for the transposes.
// The products above the diagonal are computed and then zeroed by the softmax: 2x the needed
// FLOPs, the price of plain GEMMs (a fused flash kernel is the next step).
#include <cmath>

#include "kernels/cuda/common.cuh"
#include "kernels/cuda/ops.h"

namespace scratchgpt::cuda {

using detail::blocks_for;
using detail::check;
using detail::check_launch;

namespace {

constexpr int kWarp = 32;
constexpr int kRowsPerBlock = 8;

__device__ float warp_sum(float v) {
  for (int o = kWarp / 2; o > 0; o /= 2) v += __shfl_xor_sync(0xffffffffu, v, o);
  return v;
}
__device__ float warp_max(float v) {
  for (int o = kWarp / 2; o > 0; o /= 2) v = fmaxf(v, __shfl_xor_sync(0xffffffffu, v, o));
  return v;
}

// Rows (B*NH*T) of T scores in place: row t keeps s <= t, softmaxed; the rest becomes 0.
__global__ void causal_softmax_kernel(float* att, int64_t rows, int T) {
  const int64_t r = blockIdx.x * int64_t{kRowsPerBlock} + threadIdx.x / kWarp;
  const int lane = threadIdx.x % kWarp;
  if (r >= rows) return;
  const int t = static_cast<int>(r % T);
  float* row = att + r * T;
  float mx = -INFINITY;
  for (int s = lane; s <= t; s += kWarp) mx = fmaxf(mx, row[s]);
  mx = warp_max(mx);
  float sum = 0.0f;
  for (int s = lane; s <= t; s += kWarp) {
    const float e = expf(row[s] - mx);
    row[s] = e;
    sum += e;
  }
  const float inv = 1.0f / warp_sum(sum);
  for (int s = lane; s < T; s += kWarp) row[s] = s <= t ? row[s] * inv : 0.0f;
}

// In place: datt becomes dS = att * (datt - sum_s att * datt) * scale.
__global__ void softmax_backward_kernel(float* datt, const float* att, int64_t rows, int T,
                                        float scale) {
  const int64_t r = blockIdx.x * int64_t{kRowsPerBlock} + threadIdx.x / kWarp;
  const int lane = threadIdx.x % kWarp;
  if (r >= rows) return;
  const int t = static_cast<int>(r % T);
  const float* a = att + r * T;
  float* d = datt + r * T;
  float dot = 0.0f;
  for (int s = lane; s <= t; s += kWarp) dot += a[s] * d[s];
  dot = warp_sum(dot);
  for (int s = lane; s < T; s += kWarp) d[s] = s <= t ? a[s] * (d[s] - dot) * scale : 0.0f;
}

// count products C_i = alpha op(A_i) op(B_i) + beta C_i, column-major, strides between them.
void gemm_batched(const ExecContext& ex, bool ta, bool tb, int m, int n, int k, float alpha,
                  const float* A, int lda, int64_t sa, const float* B, int ldb, int64_t sb,
                  float beta, float* Cm, int ldc, int64_t sc, int count) {
  check(cublasGemmStridedBatchedEx(
            detail::cublas(), ta ? CUBLAS_OP_T : CUBLAS_OP_N, tb ? CUBLAS_OP_T : CUBLAS_OP_N, m,
            n, k, &alpha, A, CUDA_R_32F, lda, sa, B, CUDA_R_32F, ldb, sb, &beta, Cm, CUDA_R_32F,
            ldc, sc, count, ex.tf32 ? CUBLAS_COMPUTE_32F_FAST_TF32 : CUBLAS_COMPUTE_32F,
            CUBLAS_GEMM_DEFAULT),
        "cublasGemmStridedBatchedEx");
}

void check_supported(const float* preatt, const float* drop, const char* what) {
  SG_CHECK(preatt == nullptr && drop == nullptr, what,
           " on cuda keeps no pre-softmax scores and drops no weights: pass --dropout 0 or "
           "--device cpu");
}

}  // namespace

void attention_forward(const ExecContext& ex, float* out, float* preatt, float* att,
                       const float* qkv, const float* drop, int B, int T, int C, int NH) {
  check_supported(preatt, drop, "attention_forward");
  if (B == 0 || T == 0) return;
  const int HS = C / NH, C3 = 3 * C;
  const float scale = 1.0f / std::sqrt(static_cast<float>(HS));
  const int64_t TT = int64_t{T} * T;
  for (int b = 0; b < B; ++b) {
    const float* q = qkv + int64_t{b} * T * C3;
    const float* k = q + C;
    float* a = att + int64_t{b} * NH * TT;
    // S^T (T_s, T_t) = k (T_s, HS) . q^T (HS, T_t): row-major S (T_t, T_s) in a
    gemm_batched(ex, true, false, T, T, HS, scale, k, C3, HS, q, C3, HS, 0.0f, a, T, TT, NH);
  }
  const int64_t rows = int64_t{B} * NH * T;
  causal_softmax_kernel<<<blocks_for(rows, kRowsPerBlock), kRowsPerBlock * kWarp>>>(att, rows, T);
  check_launch("attention_forward (softmax)");
  for (int b = 0; b < B; ++b) {
    const float* v = qkv + int64_t{b} * T * C3 + 2 * C;
    const float* a = att + int64_t{b} * NH * TT;
    float* y = out + int64_t{b} * T * C;
    // y^T (HS, T_t) = v^T (HS, T_s) . att^T (T_s, T_t)
    gemm_batched(ex, false, false, HS, T, T, 1.0f, v, C3, HS, a, T, TT, 0.0f, y, C, HS, NH);
  }
}

void attention_backward(const ExecContext& ex, float* dqkv, float* dpreatt, float* datt,
                        const float* dout, const float* qkv, const float* att, const float* drop,
                        int B, int T, int C, int NH) {
  check_supported(dpreatt, drop, "attention_backward");
  SG_CHECK(datt == nullptr, "attention_backward on cuda keeps its own datt");
  if (B == 0 || T == 0) return;
  const int HS = C / NH, C3 = 3 * C;
  const float scale = 1.0f / std::sqrt(static_cast<float>(HS));
  const int64_t TT = int64_t{T} * T;
  // One batch row's dS at a time: (NH, T, T) of scratch, not (B, NH, T, T).
  auto* ds = static_cast<float*>(
      detail::scratch(detail::Scratch::kAttention, sizeof(float) * static_cast<size_t>(NH * TT)));
  const int64_t rows = int64_t{NH} * T;
  for (int b = 0; b < B; ++b) {
    const float* q = qkv + int64_t{b} * T * C3;
    const float* k = q + C;
    const float* v = q + 2 * C;
    const float* a = att + int64_t{b} * NH * TT;
    const float* dy = dout + int64_t{b} * T * C;
    float* dq = dqkv + int64_t{b} * T * C3;
    float* dk = dq + C;
    float* dv = dq + 2 * C;
    // datt (T_t, T_s) = dy (T_t, HS) . v^T:  datt^T (T_s, T_t) = v (T_s, HS) . dy^T (HS, T_t)
    gemm_batched(ex, true, false, T, T, HS, 1.0f, v, C3, HS, dy, C, HS, 0.0f, ds, T, TT, NH);
    // dv (T_s, HS) = att^T (T_s, T_t) . dy (T_t, HS):  dv^T (HS, T_s) = dy^T (HS, T_t) . att
    gemm_batched(ex, false, true, HS, T, T, 1.0f, dy, C, HS, a, T, TT, 0.0f, dv, C3, HS, NH);
    softmax_backward_kernel<<<blocks_for(rows, kRowsPerBlock), kRowsPerBlock * kWarp>>>(
        ds, a, rows, T, scale);
    check_launch("attention_backward (softmax)");
    // dq (T_t, HS) = dS (T_t, T_s) . k (T_s, HS):  dq^T (HS, T_t) = k^T (HS, T_s) . dS^T
    gemm_batched(ex, false, false, HS, T, T, 1.0f, k, C3, HS, ds, T, TT, 0.0f, dq, C3, HS, NH);
    // dk (T_s, HS) = dS^T (T_s, T_t) . q (T_t, HS):  dk^T (HS, T_s) = q^T (HS, T_t) . dS
    gemm_batched(ex, false, true, HS, T, T, 1.0f, q, C3, HS, ds, T, TT, 0.0f, dk, C3, HS, NH);
  }
}

}  // namespace scratchgpt::cuda
