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

__global__ void sum_partials_kernel(float* dst, const float* partial, int chunks, int C,
                                    bool accumulate) {
  const int c = blockIdx.x * blockDim.x + threadIdx.x;
  if (c >= C) return;
  float acc = 0.0f;
  for (int k = 0; k < chunks; ++k) acc += partial[int64_t{k} * C + c];
  dst[c] = accumulate ? dst[c] + acc : acc;
}

}  // namespace

void sum_partials(float* dst, const float* partial, int chunks, int C, bool accumulate) {
  sum_partials_kernel<<<blocks_for(C, 128), 128>>>(dst, partial, chunks, C, accumulate);
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
