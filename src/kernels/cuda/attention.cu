// attention.cu: causal self-attention with the T x T weights kept (the "stored" kernel of
// kernels/ref/attention.h). Every batch row and head at once through cuBLAS's batched products,
// straight on the (B, T, 3C) qkv layout (head h's q at column h*HS, row stride 3C):
//   S = q k^T / sqrt(HS)    att = causal softmax(S)    y = att v
// and backward
//   datt = dy v^T   dv = att^T dy   dS = att * (datt - rowsum(att * datt)) / sqrt(HS)
//   dq = dS k       dk = dS^T q
// In cuBLAS's column-major terms a row-major (T, HS) block with row stride ld is an (HS, T)
// matrix with leading dimension ld, so each product is written for the transposes.
// The products run by blocks of 256 rows (kBlockRows), skipping the blocks wholly above the
// diagonal: 5/8 of the square at T = 1024; inside the diagonal blocks the products above the
// diagonal are computed and then zeroed by the softmax (the price of plain GEMMs).
// --dtype bf16 (ExecContext::dtype): every product reads bf16 copies of its inputs (q, k, v and dy
// converted once a call; the weights and dS written in bf16 by the softmax kernels beside their
// fp32 values; qkv's and the weights' copies kept from the forward when the caller gives
// Bf16Keep, and with its stats the fp32 weights not written at all: the backward recomputes them
// from the scores), sums in fp32; the softmax and its gradient stay fp32, so these are the numbers of
// ref::attention_forward/backward with bf16 up to the order of the sums.
#include <algorithm>
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

// The causal products by blocks of kBlockRows query rows: rows [t0, t0 + nt) see the keys
// [0, t0 + nt) only, so of each T x T square only the blocks on and below the diagonal are
// computed, written and read: (k + 1) / 2k of it for k blocks (5/8 at T = 1024). Above them the
// scores, dS and (where kept in bf16 only) the weights are never written.
constexpr int kBlockRows = 256;
__host__ __device__ inline int block_end(int t, int T) {  // the keys row t's block sees: [0, end)
  const int end = (t / kBlockRows + 1) * kBlockRows;
  return end < T ? end : T;
}

// Rows (B*NH*T) of T scores in place: row t keeps s <= t, softmaxed; the rest becomes 0; att16,
// when not null, gets the same weights rounded to bf16. (A one-pass online maximum and
// denominator measured slower here: two exps an element.)
__global__ void causal_softmax_kernel(float* att, __nv_bfloat16* att16, int64_t rows, int T) {
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
  for (int s = lane; s < T; s += kWarp) {
    const float a = s <= t ? row[s] * inv : 0.0f;
    row[s] = a;
    if (att16 != nullptr) att16[r * T + s] = __float2bfloat16_rn(a);
  }
}

// bf16 with kept statistics: the same weights to the bit (the same exps, sums and order), but
// only in bf16; the fp32 scores stay as they are, and each row's maximum and 1 / sum go to
// stats for the backward, and the bf16 weights only as far as the products read them
// (block_end). Half the bytes of the kernel above.
__global__ void causal_softmax_scores_kernel(const float* scores, __nv_bfloat16* att16,
                                             float2* stats, int64_t rows, int T) {
  const int64_t r = blockIdx.x * int64_t{kRowsPerBlock} + threadIdx.x / kWarp;
  const int lane = threadIdx.x % kWarp;
  if (r >= rows) return;
  const int t = static_cast<int>(r % T);
  const float* row = scores + r * T;
  float mx = -INFINITY;
  for (int s = lane; s <= t; s += kWarp) mx = fmaxf(mx, row[s]);
  mx = detail::warp_max(mx);
  float sum = 0.0f;
  for (int s = lane; s <= t; s += kWarp) sum += expf(row[s] - mx);
  const float inv = 1.0f / warp_sum(sum);
  const int end = block_end(t, T);  // the products read no further
  for (int s = lane; s < end; s += kWarp)
    att16[r * T + s] = __float2bfloat16_rn(s <= t ? expf(row[s] - mx) * inv : 0.0f);
  if (lane == 0) stats[r] = make_float2(mx, inv);
}

// In place: datt becomes dS = att * (datt - sum_s att * datt) * scale. bf16: dS goes to ds16
// instead (datt is left as it was), and att rounded to att16 unless that is null (kept).
__global__ void softmax_backward_kernel(float* datt, const float* att, __nv_bfloat16* ds16,
                                        __nv_bfloat16* att16, int64_t rows, int T, float scale) {
  const int64_t r = blockIdx.x * int64_t{kRowsPerBlock} + threadIdx.x / kWarp;
  const int lane = threadIdx.x % kWarp;
  if (r >= rows) return;
  const int t = static_cast<int>(r % T);
  const float* a = att + r * T;
  float* d = datt + r * T;
  float dot = 0.0f;
  for (int s = lane; s <= t; s += kWarp) dot += a[s] * d[s];
  dot = warp_sum(dot);
  if (ds16 == nullptr) {
    for (int s = lane; s < T; s += kWarp) d[s] = s <= t ? a[s] * (d[s] - dot) * scale : 0.0f;
    return;
  }
  for (int s = lane; s < T; s += kWarp) {
    ds16[r * T + s] = __float2bfloat16_rn(s <= t ? a[s] * (d[s] - dot) * scale : 0.0f);
    if (att16 != nullptr) att16[r * T + s] = __float2bfloat16_rn(a[s]);
  }
}

// The backward of causal_softmax_scores_kernel: dS into ds16 as softmax_backward_kernel's, each
// weight recomputed from the kept scores and statistics.
__global__ void softmax_backward_scores_kernel(const float* datt, const float* scores,
                                               const float2* stats, __nv_bfloat16* ds16,
                                               int64_t rows, int T, float scale) {
  const int64_t r = blockIdx.x * int64_t{kRowsPerBlock} + threadIdx.x / kWarp;
  const int lane = threadIdx.x % kWarp;
  if (r >= rows) return;
  const int t = static_cast<int>(r % T);
  const float* x = scores + r * T;
  const float* d = datt + r * T;
  const float2 st = stats[r];
  float dot = 0.0f;
  for (int s = lane; s <= t; s += kWarp) dot += expf(x[s] - st.x) * st.y * d[s];
  dot = warp_sum(dot);
  const int end = block_end(t, T);
  for (int s = lane; s < end; s += kWarp) {
    const float a = s <= t ? expf(x[s] - st.x) * st.y : 0.0f;
    ds16[r * T + s] = __float2bfloat16_rn(s <= t ? a * (d[s] - dot) * scale : 0.0f);
  }
}

// Where operand X of product (b, h) starts: x + b * per_b + h * per_h elements of `bytes` each
// (float32, or bf16 in --dtype bf16).
struct Operand {
  const char* x;
  int64_t per_b, per_h;
  int bytes;
  Operand(const float* p, int64_t b, int64_t h)
      : x(reinterpret_cast<const char*>(p)), per_b(b), per_h(h), bytes(4) {}
  Operand(const __nv_bfloat16* p, int64_t b, int64_t h)
      : x(reinterpret_cast<const char*>(p)), per_b(b), per_h(h), bytes(2) {}
  __device__ void* at(int b, int h) const {
    return const_cast<char*>(x + (b * per_b + h * per_h) * bytes);
  }
  Operand plus(int64_t elements) const {  // every (b, h) block moved on by `elements`
    Operand o = *this;
    o.x += elements * bytes;
    return o;
  }
};


__global__ void pointers_kernel(void** a, void** b, void** c, Operand A, Operand B, Operand C,
                                int NH, int count) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= count) return;
  a[i] = A.at(i / NH, i % NH);
  b[i] = B.at(i / NH, i % NH);
  c[i] = C.at(i / NH, i % NH);
}

// The operand over x from element `at`, or over its bf16 copy x16 in --dtype bf16.
Operand head(bool b16, const float* x, const __nv_bfloat16* x16, int64_t at, int64_t per_b,
             int64_t per_h) {
  return b16 ? Operand(x16 + at, per_b, per_h) : Operand(x + at, per_b, per_h);
}

// For every batch row b and head h, one product C_bh = alpha op(A_bh) op(B_bh) (column-major),
// all in one cuBLAS call: its pointer arrays are written on the GPU first (the heads of a row are
// HS apart and the rows T * 3C, no single stride), so a layer's attention is a few launches, not
// a few per batch row. A and B both float32 (TF32 when ex.tf32) or both bf16; C float32.
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
  SG_CHECK(A.bytes == B.bytes && C.bytes == 4, "attention: a product's inputs of two types");
  const bool b16 = A.bytes == 2;
  const cudaDataType in = b16 ? CUDA_R_16BF : CUDA_R_32F;
  check(cublasGemmBatchedEx(detail::cublas(), ta ? CUBLAS_OP_T : CUBLAS_OP_N,
                            tb ? CUBLAS_OP_T : CUBLAS_OP_N, m, n, k, &alpha, pa, in, lda, pb, in,
                            ldb, &beta, pc, CUDA_R_32F, ldc, count,
                            ex.tf32 && !b16 ? CUBLAS_COMPUTE_32F_FAST_TF32 : CUBLAS_COMPUTE_32F,
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
                       const float* qkv, const float* drop, int B, int T, int C, int NH,
                       const Bf16Keep& keep) {
  check_supported(preatt, drop, "attention_forward");
  if (B == 0 || T == 0) return;
  const int HS = C / NH, C3 = 3 * C;
  const float scale = 1.0f / std::sqrt(static_cast<float>(HS));
  const int64_t TT = int64_t{T} * T, rowq = int64_t{T} * C3;
  const int64_t rows = int64_t{B} * NH * T;
  // bf16: the products read bf16 copies, qkv's converted here, the weights' written by the
  // softmax beside the fp32 ones; into the caller's keep when given, else into scratch.
  const bool b16 = ex.dtype == Dtype::kBf16;
  const __nv_bfloat16* qkv16 = nullptr;
  __nv_bfloat16* att16 = nullptr;
  if (b16) {
    using detail::Scratch;
    const int64_t n = int64_t{B} * T * C3;
    if (keep.inp != nullptr) {
      detail::to_bf16_into(detail::as_bf16(keep.inp), qkv, n);
      qkv16 = detail::as_bf16(keep.inp);
    } else {
      qkv16 = detail::to_bf16(Scratch::kBf16A, qkv, n);
    }
    att16 = keep.weight != nullptr
                ? detail::as_bf16(keep.weight)
                : static_cast<__nv_bfloat16*>(detail::scratch(
                      Scratch::kBf16B, sizeof(__nv_bfloat16) * size_t(rows) * T));
  }
  const Operand q = head(b16, qkv, qkv16, 0, rowq, HS), k = head(b16, qkv, qkv16, C, rowq, HS),
                v = head(b16, qkv, qkv16, 2 * C, rowq, HS);
  const Operand s_out{att, NH * TT, TT}, a = head(b16, att, att16, 0, NH * TT, TT);
  const Operand y{out, int64_t{T} * C, HS};
  // S^T (T_s, T_t) = k (T_s, HS) . q^T (HS, T_t): row-major S (T_t, T_s) in att; by blocks of
  // rows t0 .. t0 + nt, keys 0 .. ns
  for (int t0 = 0; t0 < T; t0 += kBlockRows) {
    const int nt = std::min(kBlockRows, T - t0), ns = t0 + nt;
    gemm_heads(ex, true, false, ns, nt, HS, scale, k, C3, q.plus(int64_t{t0} * C3), C3,
               s_out.plus(int64_t{t0} * T), T, B, NH);
  }
  if (b16 && keep.stats != nullptr) {
    SG_CHECK(keep.weight != nullptr, "attention_forward: kept statistics need the kept weights");
    causal_softmax_scores_kernel<<<blocks_for(rows, kRowsPerBlock), kRowsPerBlock * kWarp>>>(
        att, att16, reinterpret_cast<float2*>(keep.stats), rows, T);
  } else {
    causal_softmax_kernel<<<blocks_for(rows, kRowsPerBlock), kRowsPerBlock * kWarp>>>(att, att16,
                                                                                       rows, T);
  }
  check_launch("attention_forward (softmax)");
  // y^T (HS, T_t) = v^T (HS, T_s) . att^T (T_s, T_t), by blocks of rows
  for (int t0 = 0; t0 < T; t0 += kBlockRows) {
    const int nt = std::min(kBlockRows, T - t0), ns = t0 + nt;
    gemm_heads(ex, false, false, HS, nt, ns, 1.0f, v, C3, a.plus(int64_t{t0} * T), T,
               y.plus(int64_t{t0} * C), C, B, NH);
  }
}

void attention_backward(const ExecContext& ex, float* dqkv, float* dpreatt, float* datt,
                        const float* dout, const float* qkv, const float* att, const float* drop,
                        int B, int T, int C, int NH, const Bf16Keep& kept) {
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
  const int64_t rows = int64_t{B} * NH * T;
  const Operand dq{dqkv, rowq, HS}, dk{dqkv + C, rowq, HS}, dv{dqkv + 2 * C, rowq, HS};
  const Operand datt_op{ds, NH * TT, TT};
  // bf16: the products read bf16 copies: qkv's and the weights' as the forward kept them, or
  // else qkv's converted here and the weights' written by the softmax's backward beside dS (so
  // dv follows it in both dtypes); dy's converted here.
  const bool b16 = ex.dtype == Dtype::kBf16;
  const __nv_bfloat16 *qkv16 = nullptr, *dy16 = nullptr, *att16 = nullptr;
  __nv_bfloat16 *att16_out = nullptr, *ds16 = nullptr;
  if (b16) {
    using detail::Scratch;
    qkv16 = kept.inp != nullptr ? detail::as_bf16(kept.inp)
                                : detail::to_bf16(Scratch::kBf16A, qkv, int64_t{B} * T * C3);
    dy16 = detail::to_bf16(Scratch::kBf16C, dout, int64_t{B} * T * C);
    if (kept.weight != nullptr) {
      att16 = detail::as_bf16(kept.weight);
    } else {
      att16_out = static_cast<__nv_bfloat16*>(
          detail::scratch(Scratch::kBf16B, sizeof(__nv_bfloat16) * size_t(rows) * T));
      att16 = att16_out;
    }
    ds16 = static_cast<__nv_bfloat16*>(
        detail::scratch(Scratch::kBf16D, sizeof(__nv_bfloat16) * size_t(rows) * T));
  }
  const Operand q = head(b16, qkv, qkv16, 0, rowq, HS), k = head(b16, qkv, qkv16, C, rowq, HS),
                v = head(b16, qkv, qkv16, 2 * C, rowq, HS),
                dy = head(b16, dout, dy16, 0, rowy, HS);
  const Operand a = head(b16, att, att16, 0, NH * TT, TT), d = head(b16, ds, ds16, 0, NH * TT, TT);
  // datt (T_t, T_s) = dy (T_t, HS) . v^T:  datt^T (T_s, T_t) = v (T_s, HS) . dy^T (HS, T_t), by
  // blocks of rows
  for (int t0 = 0; t0 < T; t0 += kBlockRows) {
    const int nt = std::min(kBlockRows, T - t0), ns = t0 + nt;
    gemm_heads(ex, true, false, ns, nt, HS, 1.0f, v, C3, dy.plus(int64_t{t0} * C), C,
               datt_op.plus(int64_t{t0} * T), T, B, NH);
  }
  // dS = att * (datt - rowsum(att * datt)) * scale: in place in fp32, into ds16 in bf16
  if (b16 && kept.stats != nullptr)
    softmax_backward_scores_kernel<<<blocks_for(rows, kRowsPerBlock), kRowsPerBlock * kWarp>>>(
        ds, att, reinterpret_cast<const float2*>(kept.stats), ds16, rows, T, scale);
  else
    softmax_backward_kernel<<<blocks_for(rows, kRowsPerBlock), kRowsPerBlock * kWarp>>>(
        ds, att, ds16, att16_out, rows, T, scale);
  check_launch("attention_backward (softmax)");
  // By blocks of keys s0 .. s0 + ns, which the rows s0 .. T see (att and dS are 0 above the
  // diagonal inside the diagonal block):
  // dv (T_s, HS) = att^T (T_s, T_t) . dy (T_t, HS):  dv^T (HS, T_s) = dy^T (HS, T_t) . att
  // dk (T_s, HS) = dS^T (T_s, T_t) . q (T_t, HS):  dk^T (HS, T_s) = q^T (HS, T_t) . dS
  for (int s0 = 0; s0 < T; s0 += kBlockRows) {
    const int ns = std::min(kBlockRows, T - s0), nt = T - s0;
    const int64_t diag = int64_t{s0} * T + s0;
    gemm_heads(ex, false, true, HS, ns, nt, 1.0f, dy.plus(int64_t{s0} * C), C, a.plus(diag), T,
               dv.plus(int64_t{s0} * C3), C3, B, NH);
    gemm_heads(ex, false, true, HS, ns, nt, 1.0f, q.plus(int64_t{s0} * C3), C3, d.plus(diag), T,
               dk.plus(int64_t{s0} * C3), C3, B, NH);
  }
  // dq (T_t, HS) = dS (T_t, T_s) . k (T_s, HS):  dq^T (HS, T_t) = k^T (HS, T_s) . dS^T, by
  // blocks of rows
  for (int t0 = 0; t0 < T; t0 += kBlockRows) {
    const int nt = std::min(kBlockRows, T - t0), ns = t0 + nt;
    gemm_heads(ex, false, false, HS, nt, ns, 1.0f, k, C3, d.plus(int64_t{t0} * T), T,
               dq.plus(int64_t{t0} * C3), C3, B, NH);
  }
}

}  // namespace scratchgpt::cuda
