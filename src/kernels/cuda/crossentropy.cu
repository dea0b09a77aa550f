// crossentropy.cu: softmax over the vocabulary and the cross-entropy loss, one block per row.
#include <cmath>

#include "kernels/cuda/common.cuh"
#include "kernels/cuda/ops.h"

namespace scratchgpt::cuda {

using detail::blocks_for;
using detail::check_launch;

namespace {

constexpr int kThreads = 512;

// The block's sum (op = sum) or max of v, in a fixed tree order; every thread gets it.
template <bool kMax>
__device__ float block_reduce(float v) {
  __shared__ float part[kThreads / 32];
  for (int o = 16; o > 0; o /= 2) {
    const float w = __shfl_xor_sync(0xffffffffu, v, o);
    v = kMax ? fmaxf(v, w) : v + w;
  }
  const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
  __syncthreads();  // part may still be read by an earlier call
  if (lane == 0) part[warp] = v;
  __syncthreads();
  v = lane < kThreads / 32 ? part[lane] : (kMax ? -INFINITY : 0.0f);
  for (int o = 16; o > 0; o /= 2) {
    const float w = __shfl_xor_sync(0xffffffffu, v, o);
    v = kMax ? fmaxf(v, w) : v + w;
  }
  return v;
}

__global__ void crossentropy_forward_kernel(float* losses, float* probs, const float* logits,
                                            const int32_t* targets, int V) {
  const int64_t n = blockIdx.x;
  const float* x = logits + n * V;
  float* p = probs + n * V;
  float mx = -INFINITY;
  for (int v = threadIdx.x; v < V; v += kThreads) mx = fmaxf(mx, x[v]);
  mx = block_reduce<true>(mx);
  float sum = 0.0f;
  for (int v = threadIdx.x; v < V; v += kThreads) {
    const float e = expf(x[v] - mx);
    p[v] = e;
    sum += e;
  }
  sum = block_reduce<false>(sum);
  const float inv = 1.0f / sum;
  for (int v = threadIdx.x; v < V; v += kThreads) p[v] *= inv;
  if (threadIdx.x == 0) losses[n] = logf(sum) + mx - x[targets[n]];  // log-sum-exp form
}

__global__ void crossentropy_backward_kernel(float* dlogits, const float* probs,
                                             const int32_t* targets, const float* dlosses,
                                             int V) {
  const int64_t n = blockIdx.y;
  const int v = blockIdx.x * blockDim.x + threadIdx.x;
  if (v >= V) return;
  const float onehot = v == targets[n] ? 1.0f : 0.0f;
  dlogits[n * V + v] = dlosses[n] * (probs[n * V + v] - onehot);
}

}  // namespace

void crossentropy_forward(const ExecContext&, float* losses, float* probs, const float* logits,
                          const int32_t* targets, int N, int V) {
  if (N == 0) return;
  crossentropy_forward_kernel<<<static_cast<unsigned>(N), kThreads>>>(losses, probs, logits,
                                                                       targets, V);
  check_launch("crossentropy_forward");
}

void crossentropy_backward(const ExecContext&, float* dlogits, const float* probs,
                           const int32_t* targets, const float* dlosses, int N, int V) {
  if (N == 0) return;
  crossentropy_backward_kernel<<<dim3(blocks_for(V, 256), static_cast<unsigned>(N)), 256>>>(
      dlogits, probs, targets, dlosses, V);
  check_launch("crossentropy_backward");
}

}  // namespace scratchgpt::cuda
