// adamw.cu: AdamW, one thread per element, torch's _single_tensor_adamw in the order of
// kernels/ref/adamw.h (the step's scalars computed on the host by ref::AdamWScalars); and the
// gradients' global L2 norm.
#include <algorithm>
#include <cmath>
#include <vector>

#include "kernels/cuda/common.cuh"
#include "kernels/cuda/ops.h"
#include "kernels/ref/adamw.h"

namespace scratchgpt::cuda {

using detail::blocks_for;
using detail::check;
using detail::check_launch;

namespace {

__global__ void adamw_kernel(float* param, const float* grad, float* m, float* v, int64_t n,
                             float beta1, float beta2, float eps, float grad_scale,
                             ref::AdamWScalars<float> s) {
  const int64_t i = blockIdx.x * int64_t{blockDim.x} + threadIdx.x;
  if (i >= n) return;
  const float g = grad_scale == 1.0f ? grad[i] : grad[i] * grad_scale;
  float p = param[i] * s.decay;
  const float mi = __fadd_rn(__fmul_rn(m[i], beta1), __fmul_rn(s.one_minus_b1, g));
  const float vi = __fadd_rn(__fmul_rn(v[i], beta2), __fmul_rn(__fmul_rn(s.one_minus_b2, g), g));
  const float denom = __fadd_rn(__fdiv_rn(sqrtf(vi), s.bc2_sqrt), eps);
  p = __fadd_rn(p, __fdiv_rn(__fmul_rn(-s.step_size, mi), denom));
  m[i] = mi;
  v[i] = vi;
  param[i] = p;
}

// One array of adamw_update_all, with its step's scalars; first: its first element's index in
// the concatenation of all arrays.
struct Segment {
  float* param;
  const float* grad;
  float* m;
  float* v;
  int64_t first, n;
  ref::AdamWScalars<float> s;
};

// Every element of every array in one launch: a thread finds its array by binary search.
__global__ void adamw_all_kernel(const Segment* segs, int count, int64_t total, float beta1,
                                 float beta2, float eps, float grad_scale) {
  for (int64_t i = blockIdx.x * int64_t{blockDim.x} + threadIdx.x; i < total;
       i += int64_t{gridDim.x} * blockDim.x) {
    int lo = 0, hi = count - 1;
    while (lo < hi) {
      const int mid = (lo + hi + 1) / 2;
      if (segs[mid].first <= i) lo = mid; else hi = mid - 1;
    }
    const Segment& g = segs[lo];
    const int64_t j = i - g.first;
    const float gr = grad_scale == 1.0f ? g.grad[j] : g.grad[j] * grad_scale;
    float p = g.param[j] * g.s.decay;
    const float mi = __fadd_rn(__fmul_rn(g.m[j], beta1), __fmul_rn(g.s.one_minus_b1, gr));
    const float vi =
        __fadd_rn(__fmul_rn(g.v[j], beta2), __fmul_rn(__fmul_rn(g.s.one_minus_b2, gr), gr));
    const float denom = __fadd_rn(__fdiv_rn(sqrtf(vi), g.s.bc2_sqrt), eps);
    p = __fadd_rn(p, __fdiv_rn(__fmul_rn(-g.s.step_size, mi), denom));
    g.m[j] = mi;
    g.v[j] = vi;
    g.param[j] = p;
  }
}

constexpr int kNormThreads = 256;
constexpr int64_t kNormPiece = 1 << 16;  // elements summed by one block

// One array of global_norm: its first piece's index among all arrays' pieces.
struct NormSegment {
  const float* x;
  int64_t n, first_piece;
};

// partial[p] = sum of squares (in double) of piece p, in a fixed tree order: every piece of every
// array in one launch, a block per piece, its array found by binary search.
__global__ void sum_squares_kernel(double* partial, const NormSegment* segs, int count) {
  __shared__ double part[kNormThreads];
  const int64_t piece = blockIdx.x;
  int lo = 0, hi = count - 1;
  while (lo < hi) {
    const int mid = (lo + hi + 1) / 2;
    if (segs[mid].first_piece <= piece) lo = mid; else hi = mid - 1;
  }
  const float* x = segs[lo].x;
  const int64_t n = segs[lo].n;
  const int64_t begin = (piece - segs[lo].first_piece) * kNormPiece;
  const int64_t end = begin + kNormPiece < n ? begin + kNormPiece : n;
  double acc = 0.0;
  for (int64_t i = begin + threadIdx.x; i < end; i += kNormThreads)
    acc += static_cast<double>(x[i]) * x[i];
  part[threadIdx.x] = acc;
  __syncthreads();
  for (int s = kNormThreads / 2; s > 0; s /= 2) {
    if (threadIdx.x < s) part[threadIdx.x] += part[threadIdx.x + s];
    __syncthreads();
  }
  if (threadIdx.x == 0) partial[piece] = part[0];
}

}  // namespace

void adamw_update(const ExecContext&, float* param, const float* grad, float* m, float* v,
                  int64_t n, float lr, float beta1, float beta2, float eps, float weight_decay,
                  int t, float grad_scale) {
  if (n == 0) return;
  const ref::AdamWScalars<float> s(lr, beta1, beta2, weight_decay, t);
  adamw_kernel<<<blocks_for(n, 256), 256>>>(param, grad, m, v, n, beta1, beta2, eps, grad_scale,
                                            s);
  check_launch("adamw_update");
}

void adamw_update_all(const ExecContext&, int count, const cpu::AdamWArray* arrays, float lr,
                      float beta1, float beta2, float eps, int t, float grad_scale) {
  thread_local std::vector<Segment> segs;  // grows once
  segs.clear();
  int64_t total = 0;
  for (int a = 0; a < count; ++a) {
    const cpu::AdamWArray& x = arrays[a];
    if (x.n == 0) continue;
    segs.push_back({x.param, x.grad, x.m, x.v, total, x.n,
                    ref::AdamWScalars<float>(lr, beta1, beta2, x.weight_decay, t)});
    total += x.n;
  }
  if (total == 0) return;
  auto* dev = static_cast<Segment*>(
      detail::scratch(detail::Scratch::kBuckets, sizeof(Segment) * segs.size()));
  check(cudaMemcpy(dev, segs.data(), sizeof(Segment) * segs.size(), cudaMemcpyHostToDevice),
        "adamw_update_all: copying the arrays' table");
  const unsigned grid = static_cast<unsigned>(std::min<int64_t>(blocks_for(total, 256), 8192));
  adamw_all_kernel<<<grid, 256>>>(dev, static_cast<int>(segs.size()), total, beta1, beta2, eps,
                                  grad_scale);
  check_launch("adamw_update_all");
}

double global_norm(const ExecContext&, int count, const float* const* x, const int64_t* n) {
  thread_local std::vector<NormSegment> segs;
  segs.clear();
  int64_t pieces = 0;
  for (int a = 0; a < count; ++a) {
    const int64_t p = (n[a] + kNormPiece - 1) / kNormPiece;
    if (p == 0) continue;
    segs.push_back({x[a], n[a], pieces});
    pieces += p;
  }
  if (pieces == 0) return 0.0;
  auto* partial = static_cast<double*>(
      detail::scratch(detail::Scratch::kNorm, sizeof(double) * static_cast<size_t>(pieces)));
  auto* table = static_cast<NormSegment*>(
      detail::scratch(detail::Scratch::kNormTable, sizeof(NormSegment) * segs.size()));
  check(cudaMemcpy(table, segs.data(), sizeof(NormSegment) * segs.size(), cudaMemcpyHostToDevice),
        "global_norm: copying the arrays' table");
  sum_squares_kernel<<<static_cast<unsigned>(pieces), kNormThreads>>>(
      partial, table, static_cast<int>(segs.size()));
  check_launch("global_norm");
  thread_local std::vector<double> host;
  host.resize(static_cast<size_t>(pieces));
  check(cudaMemcpy(host.data(), partial, sizeof(double) * host.size(), cudaMemcpyDeviceToHost),
        "global_norm: reading the partial sums");
  double sum = 0.0;
  for (double p : host) sum += p;  // in array and piece order
  return std::sqrt(sum);
}

}  // namespace scratchgpt::cuda
