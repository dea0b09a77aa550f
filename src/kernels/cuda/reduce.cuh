// reduce.cuh: the sums and maxima the softmax, layernorm and attention kernels take across a warp
// or a block, each in a fixed tree order (the same bits every run), and MaxSum, a softmax's
// running maximum and denominator in one pass (online softmax). Device code, for src/kernels/cuda.
#pragma once

#include <cmath>

namespace scratchgpt::cuda::detail {

inline constexpr int kWarp = 32;

__device__ inline float warp_sum(float v) {
  for (int o = kWarp / 2; o > 0; o /= 2) v += __shfl_xor_sync(0xffffffffu, v, o);
  return v;
}
__device__ inline float warp_max(float v) {
  for (int o = kWarp / 2; o > 0; o /= 2) v = fmaxf(v, __shfl_xor_sync(0xffffffffu, v, o));
  return v;
}

// The block's sum (kMax false) or max of v, every thread gets it; part: kThreads / 32 floats of
// shared memory.
template <int kThreads, bool kMax>
__device__ float block_reduce(float v, float* part) {
  v = kMax ? warp_max(v) : warp_sum(v);
  const int warp = threadIdx.x / kWarp, lane = threadIdx.x % kWarp;
  __syncthreads();  // part may still be read by an earlier call
  if (lane == 0) part[warp] = v;
  __syncthreads();
  v = lane < kThreads / kWarp ? part[lane] : (kMax ? -INFINITY : 0.0f);
  return kMax ? warp_max(v) : warp_sum(v);
}

// sum of exp(x - m) over the values added, m their maximum.
struct MaxSum {
  float m = -INFINITY, s = 0.0f;
  __device__ void add(float x) {
    if (x > m) {
      s = s * expf(m - x) + 1.0f;
      m = x;
    } else if (x > -INFINITY) {
      s += expf(x - m);
    }
  }
  __device__ void merge(float om, float os) {
    const float nm = fmaxf(m, om);
    if (nm == -INFINITY) return;
    s = s * expf(m - nm) + os * expf(om - nm);
    m = nm;
  }
  __device__ void warp_merge() {
    for (int o = kWarp / 2; o > 0; o /= 2)
      merge(__shfl_xor_sync(0xffffffffu, m, o), __shfl_xor_sync(0xffffffffu, s, o));
  }
};

// The block's MaxSum; every thread gets it. pm, ps: kThreads / 32 floats of shared memory each.
template <int kThreads>
__device__ MaxSum block_merge(MaxSum a, float* pm, float* ps) {
  a.warp_merge();
  const int warp = threadIdx.x / kWarp, lane = threadIdx.x % kWarp;
  __syncthreads();
  if (lane == 0) {
    pm[warp] = a.m;
    ps[warp] = a.s;
  }
  __syncthreads();
  MaxSum b;
  if (lane < kThreads / kWarp) {
    b.m = pm[lane];
    b.s = ps[lane];
  }
  b.warp_merge();
  return b;
}

}  // namespace scratchgpt::cuda::detail
