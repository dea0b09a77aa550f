// crossentropy.cu: softmax over the vocabulary and the cross-entropy loss, one block per row;
// float4 loads and stores where the rows allow them. The backward writes the logits' gradient in
// fp32, or (--dtype bf16, the model's lm_head) straight in bf16; the forward may keep each row's
// maximum and 1 / sum instead of the (B, T, V) probabilities, which the backward then recomputes
// from the logits (one pass over V fewer, and 4 bytes a logit less memory).
#include <cmath>
#include <cstdint>

#include "kernels/cuda/common.cuh"
#include "kernels/cuda/ops.h"
#include "kernels/cuda/reduce.cuh"

namespace scratchgpt::cuda {

using detail::blocks_for;
using detail::check_launch;
using detail::MaxSum;

namespace {

constexpr int kThreads = 512;

// kW floats from x[v] (one float4 load when kW is 4: V % 4 == 0 and the rows 16-byte aligned).
template <int kW>
__device__ void load(float (&e)[kW], const float* x) {
  if constexpr (kW == 4) {
    const float4 q = *reinterpret_cast<const float4*>(x);
    e[0] = q.x, e[1] = q.y, e[2] = q.z, e[3] = q.w;
  } else {
    e[0] = *x;
  }
}
template <int kW>
__device__ void store(float* x, const float (&e)[kW]) {
  if constexpr (kW == 4) {
    *reinterpret_cast<float4*>(x) = make_float4(e[0], e[1], e[2], e[3]);
  } else {
    *x = e[0];
  }
}

// One block per row: one pass for the maximum and the denominator together (online softmax),
// one to write the probabilities (the row, 200 KB at GPT-2's V, is read again from L2).
// probs null: the row's maximum and 1 / sum go to stats[n] instead (the backward recomputes each
// probability from them), and the row is read once, not twice.
template <int kW>
__global__ void crossentropy_forward_kernel(float* losses, float* probs, float2* stats,
                                            const float* logits, const int32_t* targets, int V) {
  const int64_t n = blockIdx.x;
  const float* x = logits + n * V;
  MaxSum a;
  for (int v = threadIdx.x * kW; v < V; v += kThreads * kW) {
    float e[kW];
    load<kW>(e, x + v);
    for (int j = 0; j < kW; ++j) a.add(e[j]);
  }
  __shared__ float pm[kThreads / 32], ps[kThreads / 32];
  a = detail::block_merge<kThreads>(a, pm, ps);
  const float inv = 1.0f / a.s;
  if (threadIdx.x == 0) losses[n] = logf(a.s) + a.m - x[targets[n]];  // log-sum-exp form
  if (probs == nullptr) {
    if (threadIdx.x == 0) stats[n] = make_float2(a.m, inv);
    return;
  }
  float* p = probs + n * V;
  for (int v = threadIdx.x * kW; v < V; v += kThreads * kW) {
    float e[kW];
    load<kW>(e, x + v);
    for (int j = 0; j < kW; ++j) e[j] = expf(e[j] - a.m) * inv;
    store<kW>(p + v, e);
  }
}

// kW values to x[v] rounded to bf16 (nearest even): one 8-byte store when kW is 4.
template <int kW>
__device__ void store(__nv_bfloat16* x, const float (&e)[kW]) {
  if constexpr (kW == 4) {
    __nv_bfloat162 h[2] = {__floats2bfloat162_rn(e[0], e[1]), __floats2bfloat162_rn(e[2], e[3])};
    *reinterpret_cast<uint2*>(x) = *reinterpret_cast<const uint2*>(h);
  } else {
    *x = __float2bfloat16_rn(e[0]);
  }
}

// dlogits of Out: float, or bf16 (the lm_head's product input, rounded here instead of in a pass
// of its own). probs null: each probability recomputed from the logits and the forward's stats
// (the target's p - 1 then one fused multiply-add: the last bit may differ from the stored p's).
template <int kW, typename Out>
__global__ void crossentropy_backward_kernel(Out* dlogits, const float* probs,
                                             const float* logits, const float2* stats,
                                             const int32_t* targets, const float* dlosses,
                                             int V) {
  const int64_t n = blockIdx.y;
  const int v = (blockIdx.x * blockDim.x + threadIdx.x) * kW;
  if (v >= V) return;
  const int target = targets[n];
  const float dl = dlosses[n];
  float e[kW];
  if (probs != nullptr) {
    load<kW>(e, probs + n * V + v);
  } else {
    load<kW>(e, logits + n * V + v);
    const float2 st = stats[n];
    for (int j = 0; j < kW; ++j) e[j] = expf(e[j] - st.x) * st.y;
  }
  for (int j = 0; j < kW; ++j) e[j] = dl * (e[j] - (v + j == target ? 1.0f : 0.0f));
  store<kW>(dlogits + n * V + v, e);
}

bool aligned16(const void* p) { return reinterpret_cast<uintptr_t>(p) % 16 == 0; }

}  // namespace

void crossentropy_forward(const ExecContext&, float* losses, float* probs, const float* logits,
                          const int32_t* targets, int N, int V, float* stats) {
  if (N == 0) return;
  SG_CHECK(probs != nullptr || stats != nullptr, "crossentropy_forward: no probs and no stats");
  const unsigned grid = static_cast<unsigned>(N);
  auto* st = reinterpret_cast<float2*>(stats);
  if (V % 4 == 0 && (probs == nullptr || aligned16(probs)) && aligned16(logits))
    crossentropy_forward_kernel<4><<<grid, kThreads>>>(losses, probs, st, logits, targets, V);
  else
    crossentropy_forward_kernel<1><<<grid, kThreads>>>(losses, probs, st, logits, targets, V);
  check_launch("crossentropy_forward");
}

namespace {

template <typename Out>
void launch_backward(Out* dlogits, const float* probs, const float* logits, const float2* stats,
                     const int32_t* targets, const float* dlosses, int N, int V, bool vectors) {
  if (vectors)
    crossentropy_backward_kernel<4>
        <<<dim3(blocks_for(V / 4, 256), static_cast<unsigned>(N)), 256>>>(
            dlogits, probs, logits, stats, targets, dlosses, V);
  else
    crossentropy_backward_kernel<1><<<dim3(blocks_for(V, 256), static_cast<unsigned>(N)), 256>>>(
        dlogits, probs, logits, stats, targets, dlosses, V);
  check_launch("crossentropy_backward");
}

}  // namespace

void crossentropy_backward(const ExecContext&, float* dlogits, const float* probs,
                           const int32_t* targets, const float* dlosses, int N, int V,
                           uint16_t* dlogits16, const float* logits, const float* stats) {
  if (N == 0) return;
  SG_CHECK(probs != nullptr || (logits != nullptr && stats != nullptr),
           "crossentropy_backward: no probs, and no logits and stats to recompute them from");
  const float* src = probs != nullptr ? probs : logits;
  const auto* st = reinterpret_cast<const float2*>(stats);
  const bool vectors = V % 4 == 0 && aligned16(src);
  if (dlogits16 != nullptr)  // 8-byte stores: rows of V % 4 == 0 bf16 values from an 8-byte base
    launch_backward(detail::as_bf16(dlogits16), probs, logits, st, targets, dlosses, N, V,
                    vectors && reinterpret_cast<uintptr_t>(dlogits16) % 8 == 0);
  else
    launch_backward(dlogits, probs, logits, st, targets, dlosses, N, V,
                    vectors && aligned16(dlogits));
}

}  // namespace scratchgpt::cuda
