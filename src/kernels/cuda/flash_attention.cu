// flash_attention.cu: fused causal self-attention (FlashAttention-2 style) on the tensor cores:
// the (T, T) scores and weights never leave the chip. A block takes 64 query rows of one (b, h),
// four warps of 16 rows each; key tiles of 64 stream through shared memory; each warp's scores
// come from TF32 WMMA products (16x16x8, fp32 sums), then an online softmax (running max and
// sum per row) and a second product with V. Only the row log-sum-exp is saved.
// Backward recomputes the weights from it, in two kernels so that no sum needs atomics (the same
// bits every run): one per key tile (dK, dV: loops over the query tiles at or after it), one per
// query tile (dQ: loops over the key tiles up to the diagonal). D = rowsum(dout * out) first.
// Head sizes up to 128 (padded with zeros to 16, 32, 64 or 128 inside the tiles). The inputs of
// each product are rounded to TF32 (10-bit mantissas): the ExecContext's tf32 says so, and the
// model takes this kernel only then (run/exec.cpp); the stored kernel (attention.cu) is full fp32.
#include <mma.h>

#include <cmath>

#include "kernels/cuda/common.cuh"
#include "kernels/cuda/ops.h"
#include "kernels/cuda/reduce.cuh"

namespace scratchgpt::cuda {

using detail::check;
using detail::check_launch;
namespace wmma = nvcuda::wmma;

namespace {

constexpr int kRows = 64;     // query rows per block, and key rows per tile
constexpr int kWarps = 4;     // 16 rows each
constexpr int kThreads = 128;
constexpr int kLdS = kRows + 4;  // row stride of the per-warp (16, 64) score tiles

using FragA = wmma::fragment<wmma::matrix_a, 16, 16, 8, wmma::precision::tf32, wmma::row_major>;
using FragBCol = wmma::fragment<wmma::matrix_b, 16, 16, 8, wmma::precision::tf32, wmma::col_major>;
using FragBRow = wmma::fragment<wmma::matrix_b, 16, 16, 8, wmma::precision::tf32, wmma::row_major>;
using FragC = wmma::fragment<wmma::accumulator, 16, 16, 8, float>;

__device__ __forceinline__ float tf32(float x) { return wmma::__float_to_tf32(x); }

// rows [r0, r0 + 64) x [0, HSP) of one head of qkv (B, T, 3C) at column offset col into s (row
// stride LD), rounded to TF32; zeros past T and past HS.
template <int HSP>
__device__ void load_tile(float* s, const float* src, int r0, int T, int C3, int col, int HS) {
  constexpr int LD = HSP + 4;
  for (int i = threadIdx.x; i < kRows * HSP; i += kThreads) {
    const int r = i / HSP, d = i % HSP, t = r0 + r;
    s[r * LD + d] = t < T && d < HS ? tf32(src[int64_t{t} * C3 + col + d]) : 0.0f;
  }
}

// out (16, 64) of this warp = a (16, HSP) rows of A . b^T, b (64, HSP) rows: scores.
template <int HSP>
__device__ void product_abt(float* out, const float* a, const float* b) {
  constexpr int LD = HSP + 4;
  for (int n = 0; n < kRows / 16; ++n) {
    FragC acc;
    wmma::fill_fragment(acc, 0.0f);
    for (int k = 0; k < HSP / 8; ++k) {
      FragA fa;
      FragBCol fb;
      wmma::load_matrix_sync(fa, a + k * 8, LD);
      wmma::load_matrix_sync(fb, b + n * 16 * LD + k * 8, LD);
      wmma::mma_sync(acc, fa, fb, acc);
    }
    wmma::store_matrix_sync(out + n * 16, acc, kLdS, wmma::mem_row_major);
  }
}

// acc[n] += p (16, 64) . b (64, HSP): p this warp's tile (stride kLdS), b rows (stride LD).
template <int HSP>
__device__ void product_pb(FragC* acc, const float* p, const float* b) {
  constexpr int LD = HSP + 4;
  for (int n = 0; n < HSP / 16; ++n)
    for (int k = 0; k < kRows / 8; ++k) {
      FragA fa;
      FragBRow fb;
      wmma::load_matrix_sync(fa, p + k * 8, kLdS);
      wmma::load_matrix_sync(fb, b + k * 8 * LD + n * 16, LD);
      wmma::mma_sync(acc[n], fa, fb, acc[n]);
    }
}

// Writes acc (16, HSP) * mul, through the warp's stage (16, LD), to rows row0.. of dst (stride
// C3, column col), rows below T and columns below HS only.
template <int HSP>
__device__ void store_rows(float* dst, const FragC* acc, float* stage, int row0, int T, int C3,
                           int col, int HS, float mul) {
  constexpr int LD = HSP + 4;
  for (int n = 0; n < HSP / 16; ++n)
    wmma::store_matrix_sync(stage + n * 16, acc[n], LD, wmma::mem_row_major);
  __syncwarp();
  const int lane = threadIdx.x % 32;
  for (int i = lane; i < 16 * HSP; i += 32) {
    const int r = i / HSP, d = i % HSP, t = row0 + r;
    if (t < T && d < HS) dst[int64_t{t} * C3 + col + d] = stage[r * LD + d] * mul;
  }
}

template <int HSP>
constexpr size_t forward_smem_floats() {
  return 3 * kRows * (HSP + 4) + kWarps * 16 * kLdS + kWarps * 16 * (HSP + 4);
}

template <int HSP>
__global__ void __launch_bounds__(kThreads) flash_forward_kernel(float* out, float* lse,
                                                                 const float* qkv, int T, int C,
                                                                 int NH, float scale) {
  constexpr int LD = HSP + 4;
  extern __shared__ __align__(128) float smem[];
  float* Qs = smem;
  float* Ks = Qs + kRows * LD;
  float* Vs = Ks + kRows * LD;
  const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
  float* Sw = Vs + kRows * LD + warp * 16 * kLdS;                         // (16, 64)
  float* PVw = Vs + kRows * LD + kWarps * 16 * kLdS + warp * 16 * LD;     // (16, HSP)
  const int b = blockIdx.y / NH, h = blockIdx.y % NH, HS = C / NH, C3 = 3 * C;
  const int q0 = blockIdx.x * kRows;
  const float* base = qkv + int64_t{b} * T * C3;
  load_tile<HSP>(Qs, base, q0, T, C3, h * HS, HS);

  const int r = lane / 2, half = lane % 2;  // this lane: row r of the warp, half the columns
  const int t = q0 + warp * 16 + r;
  float o[HSP / 2];
#pragma unroll
  for (int j = 0; j < HSP / 2; ++j) o[j] = 0.0f;
  float m = -INFINITY, l = 0.0f;
  const int kend = min(T, q0 + kRows);
  for (int k0 = 0; k0 < kend; k0 += kRows) {
    __syncthreads();  // the last tile's K and V are no longer read (and Qs is written)
    load_tile<HSP>(Ks, base, k0, T, C3, C + h * HS, HS);
    load_tile<HSP>(Vs, base, k0, T, C3, 2 * C + h * HS, HS);
    __syncthreads();
    product_abt<HSP>(Sw, Qs + warp * 16 * LD, Ks);  // S = q k^T
    __syncwarp();
    float mx = -INFINITY;
    for (int j = 0; j < kRows / 2; ++j) {
      const int c = half * (kRows / 2) + j, key = k0 + c;
      if (key <= t && key < T) mx = fmaxf(mx, Sw[r * kLdS + c] * scale);
    }
    mx = fmaxf(mx, __shfl_xor_sync(0xffffffffu, mx, 1));
    const float m_new = fmaxf(m, mx);
    const float alpha = m == -INFINITY ? 0.0f : expf(m - m_new);
    float sum = 0.0f;
    for (int j = 0; j < kRows / 2; ++j) {
      const int c = half * (kRows / 2) + j, key = k0 + c;
      const float p = key <= t && key < T ? expf(Sw[r * kLdS + c] * scale - m_new) : 0.0f;
      Sw[r * kLdS + c] = tf32(p);
      sum += p;
    }
    sum += __shfl_xor_sync(0xffffffffu, sum, 1);
    l = l * alpha + sum;
    m = m_new;
    __syncwarp();
    FragC pv[HSP / 16];
    for (int n = 0; n < HSP / 16; ++n) wmma::fill_fragment(pv[n], 0.0f);
    product_pb<HSP>(pv, Sw, Vs);  // P v
    for (int n = 0; n < HSP / 16; ++n)
      wmma::store_matrix_sync(PVw + n * 16, pv[n], LD, wmma::mem_row_major);
    __syncwarp();
#pragma unroll
    for (int j = 0; j < HSP / 2; ++j) o[j] = o[j] * alpha + PVw[r * LD + half * (HSP / 2) + j];
    __syncwarp();
  }
  if (t >= T) return;
  const float inv = 1.0f / l;
  float* y = out + (int64_t{b} * T + t) * C + h * HS;
#pragma unroll
  for (int j = 0; j < HSP / 2; ++j) {
    const int d = half * (HSP / 2) + j;
    if (d < HS) y[d] = o[j] * inv;
  }
  if (half == 0) lse[int64_t{blockIdx.y} * T + t] = m + logf(l);
}

// D[bh, t] = sum_d dout[b, t, h, d] * out[b, t, h, d], a warp per row.
__global__ void delta_kernel(float* D, const float* dout, const float* out, int B, int T, int C,
                             int NH) {
  const int64_t row = blockIdx.x * int64_t{kWarps} + threadIdx.x / 32;  // (b*NH + h)*T + t
  const int lane = threadIdx.x % 32;
  if (row >= int64_t{B} * NH * T) return;
  const int t = static_cast<int>(row % T), bh = static_cast<int>(row / T);
  const int b = bh / NH, h = bh % NH, HS = C / NH;
  const int64_t at = (int64_t{b} * T + t) * C + h * HS;
  float s = 0.0f;
  for (int d = lane; d < HS; d += 32) s += dout[at + d] * out[at + d];
  s = detail::warp_sum(s);
  if (lane == 0) D[row] = s;
}

template <int HSP>
constexpr size_t backward_smem_floats() {
  static_assert(16 * (HSP + 4) <= 2 * 16 * kLdS, "the output stage must fit in P and dP");
  return 4 * kRows * (HSP + 4) + 2 * kRows + 2 * kWarps * 16 * kLdS;
}

// The weights' gradient dS on this warp's (16, 64) tiles: sw holds scores (rows: this warp's
// `row` side, columns: the other side), dpw holds dP; both become P and dS (TF32), in place.
// row_is_key: the warp's rows are keys (dK, dV) and its columns queries, or the reverse (dQ).
__device__ void softmax_grad_tile(float* sw, float* dpw, int row0, int col0, bool row_is_key,
                                  const float* lse_s, const float* D_s, const float* lse_row,
                                  const float* D_row, int T, float scale) {
  const int lane = threadIdx.x % 32, r = lane / 2, half = lane % 2;
  const int my = row0 + r;
  for (int j = 0; j < kRows / 2; ++j) {
    const int c = half * (kRows / 2) + j, other = col0 + c;
    const int key = row_is_key ? my : other, query = row_is_key ? other : my;
    const bool valid = key <= query && query < T && key < T;
    const float L = row_is_key ? lse_s[c] : lse_row[r];
    const float Dv = row_is_key ? D_s[c] : D_row[r];
    const float p = valid ? expf(sw[r * kLdS + c] * scale - L) : 0.0f;
    const float ds = p * (dpw[r * kLdS + c] - Dv);
    sw[r * kLdS + c] = tf32(p);
    dpw[r * kLdS + c] = tf32(ds);
  }
}

// lse and D of rows [r0, r0 + 64) of (b, h) into shared memory.
__device__ void load_rows(float* lse_s, float* D_s, const float* lse, const float* D, int64_t bh,
                          int r0, int T) {
  for (int i = threadIdx.x; i < kRows; i += kThreads) {
    const int t = r0 + i;
    lse_s[i] = t < T ? lse[bh * T + t] : 0.0f;
    D_s[i] = t < T ? D[bh * T + t] : 0.0f;
  }
}

// dK, dV of the 64 keys of block x: all query tiles at or after them.
template <int HSP>
__global__ void __launch_bounds__(kThreads) flash_dkv_kernel(float* dqkv, const float* dout,
                                                             const float* qkv, const float* lse,
                                                             const float* D, int T, int C, int NH,
                                                             float scale) {
  constexpr int LD = HSP + 4;
  extern __shared__ __align__(128) float smem[];
  float* Ks = smem;
  float* Vs = Ks + kRows * LD;
  float* Qs = Vs + kRows * LD;
  float* dOs = Qs + kRows * LD;
  float* lse_s = dOs + kRows * LD;
  float* D_s = lse_s + kRows;
  const int warp = threadIdx.x / 32;
  // Per warp: P (16, 64) then dP (16, 64), side by side; after the loop they stage the output.
  float* Sw = D_s + kRows + warp * 2 * 16 * kLdS;
  float* dPw = Sw + 16 * kLdS;
  float* stage = Sw;  // 16 x LD <= 2 x 16 x kLdS for HSP <= 128
  const int b = blockIdx.y / NH, h = blockIdx.y % NH, HS = C / NH, C3 = 3 * C;
  const int k0 = blockIdx.x * kRows;
  const float* base = qkv + int64_t{b} * T * C3;
  const float* dbase = dout + int64_t{b} * T * C;
  load_tile<HSP>(Ks, base, k0, T, C3, C + h * HS, HS);
  load_tile<HSP>(Vs, base, k0, T, C3, 2 * C + h * HS, HS);
  FragC dk[HSP / 16], dv[HSP / 16];
  for (int n = 0; n < HSP / 16; ++n) {
    wmma::fill_fragment(dk[n], 0.0f);
    wmma::fill_fragment(dv[n], 0.0f);
  }
  for (int q0 = k0; q0 < T; q0 += kRows) {
    __syncthreads();
    load_tile<HSP>(Qs, base, q0, T, C3, h * HS, HS);
    load_tile<HSP>(dOs, dbase, q0, T, C, h * HS, HS);
    load_rows(lse_s, D_s, lse, D, blockIdx.y, q0, T);
    __syncthreads();
    product_abt<HSP>(Sw, Ks + warp * 16 * LD, Qs);    // S^T = k q^T
    product_abt<HSP>(dPw, Vs + warp * 16 * LD, dOs);  // dP^T = v dout^T
    __syncwarp();
    softmax_grad_tile(Sw, dPw, k0 + warp * 16, q0, true, lse_s, D_s, nullptr, nullptr, T, scale);
    __syncwarp();
    product_pb<HSP>(dv, Sw, dOs);  // dv += P^T dout
    product_pb<HSP>(dk, dPw, Qs);  // dk += dS^T q
    __syncwarp();
  }
  __syncwarp();  // the stage overwrites P and dP
  float* dst = dqkv + int64_t{b} * T * C3;
  store_rows<HSP>(dst, dk, stage, k0 + warp * 16, T, C3, C + h * HS, HS, scale);
  __syncwarp();
  store_rows<HSP>(dst, dv, stage, k0 + warp * 16, T, C3, 2 * C + h * HS, HS, 1.0f);
}

// dQ of the 64 queries of block x: the key tiles up to the diagonal.
template <int HSP>
__global__ void __launch_bounds__(kThreads) flash_dq_kernel(float* dqkv, const float* dout,
                                                            const float* qkv, const float* lse,
                                                            const float* D, int T, int C, int NH,
                                                            float scale) {
  constexpr int LD = HSP + 4;
  extern __shared__ __align__(128) float smem[];
  float* Qs = smem;
  float* dOs = Qs + kRows * LD;
  float* Ks = dOs + kRows * LD;
  float* Vs = Ks + kRows * LD;
  float* lse_s = Vs + kRows * LD;
  float* D_s = lse_s + kRows;
  const int warp = threadIdx.x / 32;
  // Per warp: P (16, 64) then dP (16, 64), side by side; after the loop they stage the output.
  float* Sw = D_s + kRows + warp * 2 * 16 * kLdS;
  float* dPw = Sw + 16 * kLdS;
  float* stage = Sw;  // 16 x LD <= 2 x 16 x kLdS for HSP <= 128
  const int b = blockIdx.y / NH, h = blockIdx.y % NH, HS = C / NH, C3 = 3 * C;
  const int q0 = blockIdx.x * kRows;
  const float* base = qkv + int64_t{b} * T * C3;
  load_tile<HSP>(Qs, base, q0, T, C3, h * HS, HS);
  load_tile<HSP>(dOs, dout + int64_t{b} * T * C, q0, T, C, h * HS, HS);
  load_rows(lse_s, D_s, lse, D, blockIdx.y, q0, T);
  FragC dq[HSP / 16];
  for (int n = 0; n < HSP / 16; ++n) wmma::fill_fragment(dq[n], 0.0f);
  const int kend = min(T, q0 + kRows);
  for (int k0 = 0; k0 < kend; k0 += kRows) {
    __syncthreads();
    load_tile<HSP>(Ks, base, k0, T, C3, C + h * HS, HS);
    load_tile<HSP>(Vs, base, k0, T, C3, 2 * C + h * HS, HS);
    __syncthreads();
    product_abt<HSP>(Sw, Qs + warp * 16 * LD, Ks);    // S = q k^T
    product_abt<HSP>(dPw, dOs + warp * 16 * LD, Vs);  // dP = dout v^T
    __syncwarp();
    softmax_grad_tile(Sw, dPw, q0 + warp * 16, k0, false, nullptr, nullptr,
                      lse_s + warp * 16, D_s + warp * 16, T, scale);
    __syncwarp();
    product_pb<HSP>(dq, dPw, Ks);  // dq += dS k
    __syncwarp();
  }
  store_rows<HSP>(dqkv + int64_t{b} * T * C3, dq, stage, q0 + warp * 16, T, C3, h * HS, HS, scale);
}

template <int HSP>
void forward_at(float* out, float* lse, const float* qkv, int B, int T, int C, int NH) {
  const size_t bytes = sizeof(float) * forward_smem_floats<HSP>();
  static const bool ready = [&] {
    check(cudaFuncSetAttribute(flash_forward_kernel<HSP>,
                               cudaFuncAttributeMaxDynamicSharedMemorySize, int(bytes)),
          "flash_attention_forward: shared memory");
    return true;
  }();
  (void)ready;
  const dim3 grid((T + kRows - 1) / kRows, static_cast<unsigned>(B * NH));
  const float scale = 1.0f / std::sqrt(static_cast<float>(C / NH));
  flash_forward_kernel<HSP><<<grid, kThreads, bytes>>>(out, lse, qkv, T, C, NH, scale);
  check_launch("flash_attention_forward");
}

template <int HSP>
void backward_at(float* dqkv, const float* dout, const float* qkv, const float* lse,
                 const float* D, int B, int T, int C, int NH) {
  const size_t bytes = sizeof(float) * backward_smem_floats<HSP>();
  static const bool ready = [&] {
    check(cudaFuncSetAttribute(flash_dkv_kernel<HSP>, cudaFuncAttributeMaxDynamicSharedMemorySize,
                               int(bytes)),
          "flash_attention_backward: shared memory");
    check(cudaFuncSetAttribute(flash_dq_kernel<HSP>, cudaFuncAttributeMaxDynamicSharedMemorySize,
                               int(bytes)),
          "flash_attention_backward: shared memory");
    return true;
  }();
  (void)ready;
  const dim3 grid((T + kRows - 1) / kRows, static_cast<unsigned>(B * NH));
  const float scale = 1.0f / std::sqrt(static_cast<float>(C / NH));
  flash_dkv_kernel<HSP><<<grid, kThreads, bytes>>>(dqkv, dout, qkv, lse, D, T, C, NH, scale);
  check_launch("flash_attention_backward (dk, dv)");
  flash_dq_kernel<HSP><<<grid, kThreads, bytes>>>(dqkv, dout, qkv, lse, D, T, C, NH, scale);
  check_launch("flash_attention_backward (dq)");
}

int padded_head_size(int C, int NH) {
  const int HS = C / NH;
  SG_CHECK(HS <= 128, "the fused attention on cuda takes heads of up to 128 channels, got ", HS,
           ": use fewer channels per head (--n-head)");
  return HS <= 16 ? 16 : HS <= 32 ? 32 : HS <= 64 ? 64 : 128;
}

}  // namespace

void flash_attention_forward(const ExecContext& ex, float* out, float* lse, const float* qkv,
                             int B, int T, int C, int NH) {
  SG_CHECK(ex.dtype == Dtype::kFp32, "the fused attention on cuda has no bf16 path: the model "
           "runs the stored kernel in --dtype bf16");
  if (B == 0 || T == 0) return;
  switch (padded_head_size(C, NH)) {
    case 16: return forward_at<16>(out, lse, qkv, B, T, C, NH);
    case 32: return forward_at<32>(out, lse, qkv, B, T, C, NH);
    case 64: return forward_at<64>(out, lse, qkv, B, T, C, NH);
    default: return forward_at<128>(out, lse, qkv, B, T, C, NH);
  }
}

void flash_attention_backward(const ExecContext& ex, float* dqkv, const float* dout,
                              const float* out, const float* lse, const float* qkv, int B, int T,
                              int C, int NH) {
  SG_CHECK(ex.dtype == Dtype::kFp32, "the fused attention on cuda has no bf16 path: the model "
           "runs the stored kernel in --dtype bf16");
  if (B == 0 || T == 0) return;
  const int64_t rows = int64_t{B} * NH * T;
  auto* D = static_cast<float*>(
      detail::scratch(detail::Scratch::kAttention, sizeof(float) * static_cast<size_t>(rows)));
  delta_kernel<<<static_cast<unsigned>((rows + kWarps - 1) / kWarps), kThreads>>>(D, dout, out, B,
                                                                                 T, C, NH);
  check_launch("flash_attention_backward (D)");
  switch (padded_head_size(C, NH)) {
    case 16: return backward_at<16>(dqkv, dout, qkv, lse, D, B, T, C, NH);
    case 32: return backward_at<32>(dqkv, dout, qkv, lse, D, B, T, C, NH);
    case 64: return backward_at<64>(dqkv, dout, qkv, lse, D, B, T, C, NH);
    default: return backward_at<128>(dqkv, dout, qkv, lse, D, B, T, C, NH);
  }
}

}  // namespace scratchgpt::cuda
