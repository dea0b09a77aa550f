// attention_decode.cu: one new query against the KV cache (batch-1 decoding), one block per head:
// the scores over the cached positions, their softmax, then the weighted sum of the cached values,
// each sum in a fixed order (the same bits every run).
#include <cmath>

#include "kernels/cuda/common.cuh"
#include "kernels/cuda/ops.h"
#include "kernels/cuda/reduce.cuh"

namespace scratchgpt::cuda {

using detail::check_launch;

namespace {

constexpr int kThreads = 256;

// Block h: head h. scores: scratch + h * 2 * (n_ctx + 16), n_ctx floats.
__global__ void attention_decode_kernel(float* out, const float* q, const float* k_cache,
                                        const float* v_cache, int n_ctx, int C, int HS,
                                        float* scratch, float scale) {
  __shared__ float part[kThreads / 32];
  __shared__ float acc[kThreads];
  const int h = blockIdx.x;
  float* p = scratch + int64_t{h} * 2 * (n_ctx + 16);
  const float* qh = q + h * HS;
  float mx = -INFINITY;
  for (int t = threadIdx.x; t < n_ctx; t += kThreads) {
    const float* k = k_cache + int64_t{t} * C + h * HS;
    float s = 0.0f;
    for (int d = 0; d < HS; ++d) s += qh[d] * k[d];
    s *= scale;
    p[t] = s;
    mx = fmaxf(mx, s);
  }
  mx = detail::block_reduce<kThreads, true>(mx, part);
  float sum = 0.0f;
  for (int t = threadIdx.x; t < n_ctx; t += kThreads) {
    const float e = expf(p[t] - mx);
    p[t] = e;
    sum += e;
  }
  sum = detail::block_reduce<kThreads, false>(sum, part);  // its barriers also make every p[t] visible
  // out[d] = sum_t p[t] v[t, d] / sum: thread (g, d) sums t = g, g + G, ...; then the G partial
  // sums of each d, in g order.
  const int G = kThreads / HS, g = threadIdx.x / HS, d = threadIdx.x % HS;
  float a = 0.0f;
  if (g < G)
    for (int t = g; t < n_ctx; t += G) a += p[t] * v_cache[int64_t{t} * C + h * HS + d];
  acc[threadIdx.x] = a;
  __syncthreads();
  if (threadIdx.x < HS) {
    float s = 0.0f;
    for (int k = 0; k < G; ++k) s += acc[k * HS + threadIdx.x];
    out[h * HS + threadIdx.x] = s / sum;
  }
}

}  // namespace

void attention_decode_forward(const ExecContext&, float* out, const float* q,
                              const float* k_cache, const float* v_cache, int n_ctx, int C, int NH,
                              float* scratch) {
  if (n_ctx == 0) return;
  const int HS = C / NH;
  SG_CHECK(HS <= kThreads, "decoding on cuda takes heads of up to ", kThreads, " channels, got ",
           HS, ": sample with --device cpu");
  attention_decode_kernel<<<static_cast<unsigned>(NH), kThreads>>>(
      out, q, k_cache, v_cache, n_ctx, C, HS, scratch, 1.0f / std::sqrt(static_cast<float>(HS)));
  check_launch("attention_decode_forward");
}

}  // namespace scratchgpt::cuda
