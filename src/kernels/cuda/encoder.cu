// encoder.cu: the token and position embeddings. Backward sums into each wte row in (b, t)
// order, as ref::encoder_backward does, without atomics: the host sorts the positions by token
// (a stable counting sort of the (B, T) ids), and one block per distinct token walks its list.
#include <algorithm>
#include <vector>

#include "kernels/cuda/common.cuh"
#include "kernels/cuda/ops.h"

namespace scratchgpt::cuda {

using detail::blocks_for;
using detail::check;
using detail::check_launch;

namespace {

__global__ void encoder_forward_kernel(float* out, const int32_t* inp, const float* wte,
                                       const float* wpe, int T, int C, int64_t total) {
  const int64_t i = blockIdx.x * int64_t{blockDim.x} + threadIdx.x;
  if (i >= total) return;
  const int64_t bt = i / C;
  const int c = static_cast<int>(i % C);
  const int t = static_cast<int>(bt % T);
  out[i] = wte[int64_t{inp[bt]} * C + c] + wpe[int64_t{t} * C + c];
}

// dwpe[t, c] += dout[0, t, c] + dout[1, t, c] + ... (b in order)
__global__ void wpe_backward_kernel(float* dwpe, const float* dout, int B, int T, int C) {
  const int64_t i = blockIdx.x * int64_t{blockDim.x} + threadIdx.x;
  if (i >= int64_t{T} * C) return;
  float acc = dwpe[i];
  for (int b = 0; b < B; ++b) acc += dout[int64_t{b} * T * C + i];
  dwpe[i] = acc;
}

// Block u: token tokens[u]; its positions are order[start[u] .. start[u + 1]), ascending.
__global__ void wte_backward_kernel(float* dwte, const float* dout, const int32_t* tokens,
                                    const int32_t* start, const int32_t* order, int C) {
  const int u = blockIdx.x;
  float* row = dwte + int64_t{tokens[u]} * C;
  for (int c = threadIdx.x; c < C; c += blockDim.x) {
    float acc = row[c];
    for (int k = start[u]; k < start[u + 1]; ++k) acc += dout[int64_t{order[k]} * C + c];
    row[c] = acc;
  }
}

}  // namespace

void encoder_forward(const ExecContext&, float* out, const int32_t* inp, const float* wte,
                     const float* wpe, int B, int T, int C) {
  const int64_t total = int64_t{B} * T * C;
  if (total == 0) return;
  encoder_forward_kernel<<<blocks_for(total, 256), 256>>>(out, inp, wte, wpe, T, C, total);
  check_launch("encoder_forward");
}

void encoder_backward(const ExecContext&, float* dwte, float* dwpe, const float* dout,
                      const int32_t* inp, int B, int T, int C) {
  const int N = B * T;
  if (N == 0) return;
  wpe_backward_kernel<<<blocks_for(int64_t{T} * C, 256), 256>>>(dwpe, dout, B, T, C);
  check_launch("encoder_backward (wpe)");

  // The ids, copied out (reading the managed pages in place would move them to the host).
  thread_local std::vector<int32_t> ids, tokens, start, order, packed;
  ids.resize(static_cast<size_t>(N));
  check(cudaMemcpy(ids.data(), inp, sizeof(int32_t) * static_cast<size_t>(N), cudaMemcpyDefault),
        "encoder_backward: copying the ids");
  order.resize(static_cast<size_t>(N));
  for (int i = 0; i < N; ++i) order[static_cast<size_t>(i)] = i;
  std::stable_sort(order.begin(), order.end(),
                   [](int32_t a, int32_t b) { return ids[size_t(a)] < ids[size_t(b)]; });
  tokens.clear();
  start.clear();
  for (int k = 0; k < N; ++k) {
    const int32_t id = ids[static_cast<size_t>(order[static_cast<size_t>(k)])];
    if (tokens.empty() || tokens.back() != id) {
      tokens.push_back(id);
      start.push_back(k);
    }
  }
  start.push_back(N);
  const int U = static_cast<int>(tokens.size());
  packed.clear();  // tokens (U), start (U + 1), order (N): one copy
  packed.insert(packed.end(), tokens.begin(), tokens.end());
  packed.insert(packed.end(), start.begin(), start.end());
  packed.insert(packed.end(), order.begin(), order.end());
  auto* dev = static_cast<int32_t*>(
      detail::scratch(detail::Scratch::kBuckets, packed.size() * sizeof(int32_t)));
  check(cudaMemcpy(dev, packed.data(), packed.size() * sizeof(int32_t), cudaMemcpyHostToDevice),
        "encoder_backward: copying the buckets");
  wte_backward_kernel<<<static_cast<unsigned>(U), 128>>>(dwte, dout, dev, dev + U, dev + 2 * U + 1,
                                                         C);
  check_launch("encoder_backward (wte)");
}

}  // namespace scratchgpt::cuda
