// common.cu: see common.cuh.
#include "kernels/cuda/common.cuh"

namespace scratchgpt::cuda::detail {

cublasHandle_t cublas() {
  static cublasHandle_t handle = [] {
    cublasHandle_t h = nullptr;
    check(cublasCreate(&h), "cublasCreate");
    return h;
  }();
  return handle;
}

void* scratch(Scratch slot, size_t bytes) {
  struct Buffer {
    void* p = nullptr;
    size_t bytes = 0;
  };
  static Buffer buffers[static_cast<int>(Scratch::kCount)];
  Buffer& b = buffers[static_cast<int>(slot)];
  if (bytes > b.bytes) {
    check(cudaDeviceSynchronize(), "a kernel");  // nothing may still use the old buffer
    if (b.p != nullptr) check(cudaFree(b.p), "cudaFree");
    b.p = nullptr;
    b.bytes = 0;
    if (cudaMalloc(&b.p, bytes) != cudaSuccess) {
      cudaGetLastError();
      fail("CUDA: out of GPU memory allocating ", bytes, " bytes of scratch: use a smaller "
           "--batch-size or --block-size");
    }
    b.bytes = bytes;
  }
  return b.p;
}

namespace {

__global__ void partial_column_sums(float* partial, const float* src, int N, int C) {
  const int c = blockIdx.x * blockDim.x + threadIdx.x;
  const int chunk = blockIdx.y;
  if (c >= C) return;
  float acc = 0.0f;
  const int end = min(N, (chunk + 1) * kChunkRows);
#pragma unroll 8
  for (int n = chunk * kChunkRows; n < end; ++n) acc += src[int64_t{n} * C + c];
  partial[int64_t{chunk} * C + c] = acc;
}

__global__ void to_bf16_kernel(__nv_bfloat16* dst, const float* src, int64_t n) {
  const int64_t i = blockIdx.x * int64_t{blockDim.x} + threadIdx.x;
  if (i < n) dst[i] = __float2bfloat16_rn(src[i]);
}

// Four at a time: 16-byte loads, 8-byte stores (src 16-byte aligned).
__global__ void to_bf16x4_kernel(__nv_bfloat162* dst, const float4* src, int64_t n4) {
  const int64_t i = blockIdx.x * int64_t{blockDim.x} + threadIdx.x;
  if (i >= n4) return;
  const float4 f = src[i];
  dst[2 * i] = __floats2bfloat162_rn(f.x, f.y);
  dst[2 * i + 1] = __floats2bfloat162_rn(f.z, f.w);
}

// A block sums 32 columns, each with kLanes threads: lane j adds the partials j, j + kLanes, ...
// in order, then lane 0 adds the kLanes sums in lane order (a fixed order: the same bits every
// run). One thread a column left a GPT step's few blocks walking hundreds of partials each.
constexpr int kSumColumns = 32, kSumLanes = 16;
__global__ void sum_partials_kernel(float* dst, const float* partial, int chunks, int C,
                                    bool accumulate) {
  __shared__ float part[kSumLanes][kSumColumns];
  const int col = threadIdx.x % kSumColumns, lane = threadIdx.x / kSumColumns;
  const int c = blockIdx.x * kSumColumns + col;
  float acc = 0.0f;
  if (c < C)
    for (int k = lane; k < chunks; k += kSumLanes) acc += partial[int64_t{k} * C + c];
  part[lane][col] = acc;
  __syncthreads();
  if (lane != 0 || c >= C) return;
  float sum = 0.0f;
  for (int j = 0; j < kSumLanes; ++j) sum += part[j][col];
  dst[c] = accumulate ? dst[c] + sum : sum;
}

}  // namespace

const __nv_bfloat16* to_bf16(Scratch slot, const float* src, int64_t n) {
  auto* dst = static_cast<__nv_bfloat16*>(scratch(slot, sizeof(__nv_bfloat16) * size_t(n) + 16));
  to_bf16_into(dst, src, n);
  return dst;
}

void to_bf16_into(__nv_bfloat16* dst, const float* src, int64_t n) {
  int64_t done = 0;
  if (reinterpret_cast<uintptr_t>(src) % 16 == 0 && n >= 4) {
    const int64_t n4 = n / 4;
    to_bf16x4_kernel<<<blocks_for(n4, 256), 256>>>(reinterpret_cast<__nv_bfloat162*>(dst),
                                                    reinterpret_cast<const float4*>(src), n4);
    check_launch("to_bf16");
    done = 4 * n4;
  }
  if (done < n) {
    to_bf16_kernel<<<blocks_for(n - done, 256), 256>>>(dst + done, src + done, n - done);
    check_launch("to_bf16");
  }
}

void sum_partials(float* dst, const float* partial, int chunks, int C, bool accumulate) {
  sum_partials_kernel<<<blocks_for(C, kSumColumns), kSumColumns * kSumLanes>>>(dst, partial, chunks,
                                                                              C, accumulate);
  check_launch("sum_partials");
}

void column_sums(float* dst, const float* src, int N, int C, bool accumulate) {
  const int chunks = static_cast<int>(blocks_for(N, kChunkRows));
  auto* partial = static_cast<float*>(
      scratch(Scratch::kPartials, sizeof(float) * static_cast<size_t>(chunks) * C));
  partial_column_sums<<<dim3(blocks_for(C, 128), static_cast<unsigned>(chunks)), 128>>>(
      partial, src, N, C);
  check_launch("column_sums");
  sum_partials(dst, partial, chunks, C, accumulate);
}

}  // namespace scratchgpt::cuda::detail
