// layernorm.cu: LayerNorm over rows of C, one warp per row (the output in fp32, or in bf16 only
// when it is a --dtype bf16 product's input). The parameter gradients are column
// sums over the N rows: each block sums a fixed chunk of rows into a partial, and a second kernel
// adds the partials in chunk order (the same bits every run).
#include "kernels/cuda/common.cuh"
#include "kernels/cuda/ops.h"
#include "kernels/cuda/reduce.cuh"

namespace scratchgpt::cuda {

using detail::blocks_for;
using detail::check_launch;

namespace {

using detail::kWarp;
using detail::warp_sum;
constexpr int kRowsPerBlock = 8;  // warps per block, one row each
using detail::kChunkRows;

// out16 not null: the output rounded to bf16 there instead (out unwritten).
__global__ void layernorm_forward_kernel(float* out, __nv_bfloat16* out16, float* mean,
                                         float* rstd, const float* inp, const float* weight,
                                         const float* bias, int N, int C, float eps) {
  const int n = blockIdx.x * kRowsPerBlock + threadIdx.x / kWarp;
  const int lane = threadIdx.x % kWarp;
  if (n >= N) return;
  const float* x = inp + int64_t{n} * C;
  float s = 0.0f;
  for (int c = lane; c < C; c += kWarp) s += x[c];
  const float m = warp_sum(s) / C;
  float v = 0.0f;
  for (int c = lane; c < C; c += kWarp) v += (x[c] - m) * (x[c] - m);
  const float r = rsqrtf(warp_sum(v) / C + eps);
  for (int c = lane; c < C; c += kWarp) {
    const float y = (x[c] - m) * r * weight[c] + (bias != nullptr ? bias[c] : 0.0f);
    if (out16 != nullptr)
      out16[int64_t{n} * C + c] = __float2bfloat16_rn(y);
    else
      out[int64_t{n} * C + c] = y;
  }
  if (lane == 0) {
    mean[n] = m;
    rstd[n] = r;
  }
}

__global__ void layernorm_dinp_kernel(float* dinp, const float* dout, const float* inp,
                                      const float* weight, const float* mean, const float* rstd,
                                      int N, int C) {
  const int n = blockIdx.x * kRowsPerBlock + threadIdx.x / kWarp;
  const int lane = threadIdx.x % kWarp;
  if (n >= N) return;
  const float* x = inp + int64_t{n} * C;
  const float* dy = dout + int64_t{n} * C;
  float* dx = dinp + int64_t{n} * C;
  const float m = mean[n], r = rstd[n];
  float g_sum = 0.0f, gx_sum = 0.0f;
  for (int c = lane; c < C; c += kWarp) {
    const float g = dy[c] * weight[c];
    g_sum += g;
    gx_sum += g * (x[c] - m) * r;
  }
  const float g_mean = warp_sum(g_sum) / C, gx_mean = warp_sum(gx_sum) / C;
  for (int c = lane; c < C; c += kWarp) {
    const float xhat = (x[c] - m) * r;
    dx[c] += r * (dy[c] * weight[c] - g_mean - xhat * gx_mean);
  }
}

// partial[chunk, c] = sums over the chunk's rows of dout * xhat (dweight) and dout (dbias).
__global__ void layernorm_dparams_partial(float* pw, float* pb, const float* dout,
                                          const float* inp, const float* mean, const float* rstd,
                                          int N, int C) {
  const int c = blockIdx.x * blockDim.x + threadIdx.x;
  const int chunk = blockIdx.y;
  if (c >= C) return;
  float sw = 0.0f, sb = 0.0f;
  const int end = min(N, (chunk + 1) * kChunkRows);
#pragma unroll 8
  for (int n = chunk * kChunkRows; n < end; ++n) {
    const float dy = dout[int64_t{n} * C + c];
    sw += dy * (inp[int64_t{n} * C + c] - mean[n]) * rstd[n];
    sb += dy;
  }
  pw[int64_t{chunk} * C + c] = sw;
  pb[int64_t{chunk} * C + c] = sb;
}

}  // namespace

void layernorm_forward(const ExecContext&, float* out, float* mean, float* rstd, const float* inp,
                       const float* weight, const float* bias, int N, int C, float eps,
                       uint16_t* out16) {
  if (N == 0) return;
  layernorm_forward_kernel<<<blocks_for(N, kRowsPerBlock), kRowsPerBlock * kWarp>>>(
      out, detail::as_bf16(out16), mean, rstd, inp, weight, bias, N, C, eps);
  check_launch("layernorm_forward");
}

void layernorm_backward(const ExecContext&, float* dinp, float* dweight, float* dbias,
                        const float* dout, const float* inp, const float* weight, const float* mean,
                        const float* rstd, int N, int C) {
  if (N == 0) return;
  layernorm_dinp_kernel<<<blocks_for(N, kRowsPerBlock), kRowsPerBlock * kWarp>>>(
      dinp, dout, inp, weight, mean, rstd, N, C);
  check_launch("layernorm_backward (dinp)");
  const int chunks = static_cast<int>(blocks_for(N, kChunkRows));
  auto* partial = static_cast<float*>(detail::scratch(
      detail::Scratch::kPartials, sizeof(float) * 2 * static_cast<size_t>(chunks) * C));
  float* pw = partial;
  float* pb = partial + static_cast<int64_t>(chunks) * C;
  layernorm_dparams_partial<<<dim3(blocks_for(C, 128), static_cast<unsigned>(chunks)), 128>>>(
      pw, pb, dout, inp, mean, rstd, N, C);
  check_launch("layernorm_backward (partials)");
  detail::sum_partials(dweight, pw, chunks, C, /*accumulate=*/true);
  if (dbias != nullptr) detail::sum_partials(dbias, pb, chunks, C, /*accumulate=*/true);
}

}  // namespace scratchgpt::cuda
