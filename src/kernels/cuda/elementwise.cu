// elementwise.cu: the ops that touch each element once: GELU (tanh and exact), ReLU, the residual
// add, dropout, fill, copy, scale. One thread per element (four, through float4, for the
// activations and the residual add: the ones a GPT step runs on (B, T, 4C) and (B, T, C)), the
// formulas of kernels/ref/. The activations can also write their result rounded to bf16, the
// next product's input under --dtype bf16 (out16, dinp16).
#include <algorithm>
#include <cstdint>

#include "kernels/cuda/common.cuh"
#include "kernels/cuda/ops.h"

namespace scratchgpt::cuda {

using detail::blocks_for;
using detail::check;
using detail::check_launch;

namespace {

constexpr int kThreads = 256;

// Runs f(i) for i in [0, n) on a grid-stride loop.
template <class Fn>
__global__ void each(int64_t n, Fn f) {
  for (int64_t i = blockIdx.x * int64_t{blockDim.x} + threadIdx.x; i < n;
       i += int64_t{gridDim.x} * blockDim.x)
    f(i);
}

template <class Fn>
void launch(int64_t n, Fn f, const char* name) {
  if (n <= 0) return;
  const int64_t most = int64_t{1} << 20;  // blocks; the loop covers the rest
  const unsigned grid = static_cast<unsigned>(std::min<int64_t>(blocks_for(n, kThreads), most));
  each<<<grid, kThreads>>>(n, f);
  check_launch(name);
}

// Where map4 puts each result: fp32 (f), rounded to bf16 (h, nearest even: a product's input
// under --dtype bf16), or both; a null pointer is not written.
struct Sink {
  float* f = nullptr;
  __nv_bfloat16* h = nullptr;
  __device__ void put(int64_t i, float y) const {
    if (f != nullptr) f[i] = y;
    if (h != nullptr) h[i] = __float2bfloat16_rn(y);
  }
  __device__ void put4(int64_t i, float4 y) const {  // elements 4i .. 4i + 3
    if (f != nullptr) reinterpret_cast<float4*>(f)[i] = y;
    if (h != nullptr) {
      const __nv_bfloat162 lo = __floats2bfloat162_rn(y.x, y.y), hi = __floats2bfloat162_rn(y.z, y.w);
      reinterpret_cast<uint2*>(h)[i] = make_uint2(*reinterpret_cast<const unsigned*>(&lo),
                                                  *reinterpret_cast<const unsigned*>(&hi));
    }
  }
};
Sink sink(float* out, uint16_t* out16) { return {out, detail::as_bf16(out16)}; }

// out[i] = f(a[i]) (kIn 1) or f(a[i], b[i]) (kIn 2) for i in [0, n): four elements a thread
// through float4 loads and stores where every pointer is aligned for them, the last n % 4 (or all
// of them, unaligned) one at a time.
template <int kIn, class Fn>
__global__ void map4(Sink out, const float* a, const float* b, int64_t n4, int64_t n, Fn f) {
  const int64_t i = blockIdx.x * int64_t{blockDim.x} + threadIdx.x;
  if (i < n4) {
    const float4 x = reinterpret_cast<const float4*>(a)[i];
    float4 y;
    if constexpr (kIn == 1) {
      y = make_float4(f(x.x), f(x.y), f(x.z), f(x.w));
    } else {
      const float4 z = reinterpret_cast<const float4*>(b)[i];
      y = make_float4(f(x.x, z.x), f(x.y, z.y), f(x.z, z.z), f(x.w, z.w));
    }
    out.put4(i, y);
  }
  const int64_t tail = 4 * n4 + i;  // the first n - 4 n4 threads take the tail
  if (tail < n) {
    if constexpr (kIn == 1) out.put(tail, f(a[tail]));
    else out.put(tail, f(a[tail], b[tail]));
  }
}

template <int kIn, class Fn>
void launch_map(Sink out, const float* a, const float* b, int64_t n, Fn f, const char* name) {
  if (n <= 0) return;
  auto aligned = [](const void* p, int bytes) {
    return p == nullptr || reinterpret_cast<uintptr_t>(p) % bytes == 0;
  };
  SG_CHECK(out.f != nullptr || out.h != nullptr, name, ": no output");
  const bool vec = aligned(out.f, 16) && aligned(out.h, 8) && aligned(a, 16) &&
                   (kIn == 1 || aligned(b, 16));
  const int64_t n4 = vec ? n / 4 : 0;
  const int64_t threads = std::max<int64_t>(n4, n - 4 * n4);
  map4<kIn><<<blocks_for(threads, kThreads), kThreads>>>(out, a, b, n4, n, f);
  check_launch(name);
}

constexpr float kSqrt2OverPi = 0.7978845608028654f;  // sqrt(2 / pi)
constexpr float kInvSqrt2 = 0.7071067811865476f;
constexpr float kInvSqrt2Pi = 0.3989422804014327f;

}  // namespace

void gelu_forward(const ExecContext&, float* out, const float* inp, int64_t n, uint16_t* out16) {
  launch_map<1>(sink(out, out16), inp, nullptr, n, [] __device__(float x) {
    return 0.5f * x * (1.0f + tanhf(kSqrt2OverPi * (x + 0.044715f * x * x * x)));
  }, "gelu_forward");
}

void gelu_backward(const ExecContext&, float* dinp, const float* inp, const float* dout,
                   int64_t n, uint16_t* dinp16) {
  launch_map<2>(sink(dinp, dinp16), inp, dout, n, [] __device__(float x, float dy) {
    const float th = tanhf(kSqrt2OverPi * (x + 0.044715f * x * x * x));
    const float sech2 = 1.0f - th * th;
    const float grad = 0.5f * (1.0f + th) +
                       0.5f * x * sech2 * kSqrt2OverPi * (1.0f + 3.0f * 0.044715f * x * x);
    return dy * grad;
  }, "gelu_backward");
}

void gelu_exact_forward(const ExecContext&, float* out, const float* inp, int64_t n,
                        uint16_t* out16) {
  launch_map<1>(sink(out, out16), inp, nullptr, n, [] __device__(float x) {
    return 0.5f * x * erfcf(-x * kInvSqrt2);
  }, "gelu_exact_forward");
}

void gelu_exact_backward(const ExecContext&, float* dinp, const float* inp, const float* dout,
                         int64_t n, uint16_t* dinp16) {
  launch_map<2>(sink(dinp, dinp16), inp, dout, n, [] __device__(float x, float dy) {
    const float cdf = 0.5f * erfcf(-x * kInvSqrt2);
    const float pdf = kInvSqrt2Pi * expf(-0.5f * x * x);
    return dy * (cdf + x * pdf);
  }, "gelu_exact_backward");
}

void relu_forward(const ExecContext&, float* out, const float* inp, int64_t n, uint16_t* out16) {
  launch_map<1>(sink(out, out16), inp, nullptr, n,
                [] __device__(float x) { return x > 0.0f ? x : 0.0f; }, "relu_forward");
}

void relu_backward(const ExecContext&, float* dinp, const float* inp, const float* dout,
                   int64_t n, uint16_t* dinp16) {
  launch_map<2>(sink(dinp, dinp16), inp, dout, n,
                [] __device__(float x, float dy) { return x > 0.0f ? dy : 0.0f; },
                "relu_backward");
}

void residual_forward(const ExecContext&, float* out, const float* a, const float* b, int64_t n) {
  launch_map<2>(sink(out, nullptr), a, b, n, [] __device__(float x, float y) { return x + y; },
                "residual_forward");
}

void dropout_forward(const ExecContext&, float* out, float* mask, const float* inp, int64_t n,
                     float p) {
  const float s = p < 1.0f ? 1.0f / (1.0f - p) : 0.0f;
  launch(n, [=] __device__(int64_t i) {
    mask[i] = mask[i] * s;
    out[i] = inp[i] * mask[i];
  }, "dropout_forward");
}

void dropout_backward(const ExecContext&, float* dinp, const float* dout, const float* mask,
                      int64_t n, bool accumulate) {
  launch(n, [=] __device__(int64_t i) {
    // separately rounded, as the CPU's (no fused multiply-add): the same bits
    dinp[i] = __fadd_rn(accumulate ? dinp[i] : 0.0f, __fmul_rn(dout[i], mask[i]));
  }, "dropout_backward");
}

void zero(const ExecContext&, float* x, int64_t n) {
  if (n > 0) check(cudaMemsetAsync(x, 0, static_cast<size_t>(n) * sizeof(float)), "zero");
}

void copy(const ExecContext&, float* dst, const float* src, int64_t n) {
  if (n > 0 && dst != src)
    check(cudaMemcpyAsync(dst, src, static_cast<size_t>(n) * sizeof(float), cudaMemcpyDefault),
          "copy");
}

void fill(const ExecContext&, float* x, int64_t n, float value) {
  launch(n, [=] __device__(int64_t i) { x[i] = value; }, "fill");
}

void scale(const ExecContext&, float* x, int64_t n, float s) {
  launch(n, [=] __device__(int64_t i) { x[i] *= s; }, "scale");
}

}  // namespace scratchgpt::cuda
