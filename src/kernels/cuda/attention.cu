// attention.cu: causal self-attention with the T x T weights kept (the "stored" kernel of
// kernels/ref/attention.h). Every batch row and head at once through cuBLAS's batched products,
// straight on the (B, T, 3C) qkv layout (head h's q at column h*HS, row stride 3C):
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
#include "kernels/cuda/reduce.cuh"

namespace scratchgpt::cuda {

using detail::blocks_for;
using detail::check;
using detail::check_launch;

namespace {

using detail::kWarp;
using detail::warp_sum;
constexpr int kRowsPerBlock = 8;

// Rows (B*NH*T) of T scores in place: row t keeps s <= t, softmaxed; the rest becomes 0. (A
// one-pass online maximum and denominator measured slower here: two exps an element.)
__global__ void causal_softmax_kernel(float* att, int64_t rows, int T) {
  const int64_t r = blockIdx.x * int64_t{kRowsPerBlock} + threadIdx.x / kWarp;
  const int lane = threadIdx.x % kWarp;
  if (r >= rows) return;
  const int t = static_cast<int>(r % T);
  float* row = att + r * T;
  float mx = -INFINITY;
  for (int s = lane; s <= t; s += kWarp) mx = fmaxf(mx, row[s]);
  mx = detail::warp_max(mx);
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

// Where operand X of product (b, h) starts: x + b * per_b + h * per_h.
struct Operand {
  const float* x;
  int64_t per_b, per_h;
  __device__ const float* at(int b, int h) const { return x + b * per_b + h * per_h; }
};

__global__ void pointers_kernel(void** a, void** b, void** c, Operand A, Operand B, Operand C,
                                int NH, int count) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= count) return;
  a[i] = const_cast<float*>(A.at(i / NH, i % NH));
  b[i] = const_cast<float*>(B.at(i / NH, i % NH));
  c[i] = const_cast<float*>(C.at(i / NH, i % NH));
}

// For every batch row b and head h, one product C_bh = alpha op(A_bh) op(B_bh) (column-major),
// all in one cuBLAS call: its pointer arrays are written on the GPU first (the heads of a row are
// HS apart and the rows T * 3C, no single stride), so a layer's attention is a few launches, not
// a few per batch row.
void gemm_heads(const ExecContext& ex, bool ta, bool tb, int m, int n, int k, float alpha,
                Operand A, int lda, Operand B, int ldb, Operand C, int ldc, int Bn, int NH) {
  const int count = Bn * NH;
  auto** ptrs = static_cast<void**>(detail::scratch(
      detail::Scratch::kPointers, 3 * sizeof(void*) * static_cast<size_t>(count)));
  void** pa = ptrs;
  void** pb = ptrs + count;
  void** pc = ptrs + 2 * count;
  pointers_kernel<<<blocks_for(count, 128), 128>>>(pa, pb, pc, A, B, C, NH, count);
  check_launch("attention (pointers)");
  const float beta = 0.0f;
  check(cublasGemmBatchedEx(detail::cublas(), ta ? CUBLAS_OP_T : CUBLAS_OP_N,
                            tb ? CUBLAS_OP_T : CUBLAS_OP_N, m, n, k, &alpha, pa, CUDA_R_32F, lda,
                            pb, CUDA_R_32F, ldb, &beta, pc, CUDA_R_32F, ldc, count,
                            ex.tf32 ? CUBLAS_COMPUTE_32F_FAST_TF32 : CUBLAS_COMPUTE_32F,
                            CUBLAS_GEMM_DEFAULT),
        "cublasGemmBatchedEx");
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
  const int64_t TT = int64_t{T} * T, rowq = int64_t{T} * C3;
  const Operand q{qkv, rowq, HS}, k{qkv + C, rowq, HS}, v{qkv + 2 * C, rowq, HS};
  const Operand a{att, NH * TT, TT}, y{out, int64_t{T} * C, HS};
  // S^T (T_s, T_t) = k (T_s, HS) . q^T (HS, T_t): row-major S (T_t, T_s) in att
  gemm_heads(ex, true, false, T, T, HS, scale, k, C3, q, C3, a, T, B, NH);
  const int64_t rows = int64_t{B} * NH * T;
  causal_softmax_kernel<<<blocks_for(rows, kRowsPerBlock), kRowsPerBlock * kWarp>>>(att, rows, T);
  check_launch("attention_forward (softmax)");
  // y^T (HS, T_t) = v^T (HS, T_s) . att^T (T_s, T_t)
  gemm_heads(ex, false, false, HS, T, T, 1.0f, v, C3, a, T, y, C, B, NH);
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
  // dS (B, NH, T, T): scratch, the size of att.
  auto* ds = static_cast<float*>(detail::scratch(
      detail::Scratch::kAttention, sizeof(float) * static_cast<size_t>(B * NH * TT)));
  const int64_t rowq = int64_t{T} * C3, rowy = int64_t{T} * C;
  const Operand q{qkv, rowq, HS}, k{qkv + C, rowq, HS}, v{qkv + 2 * C, rowq, HS};
  const Operand dq{dqkv, rowq, HS}, dk{dqkv + C, rowq, HS}, dv{dqkv + 2 * C, rowq, HS};
  const Operand a{att, NH * TT, TT}, d{ds, NH * TT, TT}, dy{dout, rowy, HS};
  // datt (T_t, T_s) = dy (T_t, HS) . v^T:  datt^T (T_s, T_t) = v (T_s, HS) . dy^T (HS, T_t)
  gemm_heads(ex, true, false, T, T, HS, 1.0f, v, C3, dy, C, d, T, B, NH);
  // dv (T_s, HS) = att^T (T_s, T_t) . dy (T_t, HS):  dv^T (HS, T_s) = dy^T (HS, T_t) . att
  gemm_heads(ex, false, true, HS, T, T, 1.0f, dy, C, a, T, dv, C3, B, NH);
  const int64_t rows = int64_t{B} * NH * T;
  softmax_backward_kernel<<<blocks_for(rows, kRowsPerBlock), kRowsPerBlock * kWarp>>>(
      ds, att, rows, T, scale);
  check_launch("attention_backward (softmax)");
  // dq (T_t, HS) = dS (T_t, T_s) . k (T_s, HS):  dq^T (HS, T_t) = k^T (HS, T_s) . dS^T
  gemm_heads(ex, false, false, HS, T, T, 1.0f, k, C3, d, T, dq, C3, B, NH);
  // dk (T_s, HS) = dS^T (T_s, T_t) . q (T_t, HS):  dk^T (HS, T_s) = q^T (HS, T_t) . dS
  gemm_heads(ex, false, true, HS, T, T, 1.0f, q, C3, d, T, dk, C3, B, NH);
}

}  // namespace scratchgpt::cuda
