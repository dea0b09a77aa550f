// common.cuh: what every CUDA kernel file shares: error checks, launch sizes, the cuBLAS handle,
// and scratch memory that grows once and is then reused (no allocation in a step at a planned
// shape). Included by src/kernels/cuda/*.cu only.
#pragma once

#include <cublas_v2.h>
#include <cuda_bf16.h>
#include <cuda_runtime.h>

#include <cstdint>

#include "core/check.h"

namespace scratchgpt::cuda::detail {

inline void check(cudaError_t e, const char* what) {
  if (e != cudaSuccess) fail("CUDA: ", what, ": ", cudaGetErrorString(e));
}
inline void check(cublasStatus_t s, const char* what) {
  if (s != CUBLAS_STATUS_SUCCESS) fail("cuBLAS: ", what, " failed with status ", int(s));
}
// After a launch: a bad configuration shows here; a fault inside the kernel at the next sync.
inline void check_launch(const char* kernel) { check(cudaGetLastError(), kernel); }

inline unsigned blocks_for(int64_t n, int threads) {
  return static_cast<unsigned>((n + threads - 1) / threads);
}

// The process's cuBLAS handle, made on first use.
cublasHandle_t cublas();

// Device memory of at least `bytes`, kept for the next call (one buffer per `slot`, so two
// scratch needs of one kernel do not overlap). Waits for the GPU before it grows.
enum class Scratch {
  kPartials, kAttention, kPointers, kBuckets, kNorm, kNormTable, kWorkspace,
  kBf16A, kBf16B, kBf16C, kBf16D,  // the bf16 copies of --dtype bf16's product inputs
  kCount
};
void* scratch(Scratch slot, size_t bytes);

// --dtype bf16: n floats rounded to bf16 (nearest even, NaN kept: ref::round_bf16's numbers) in
// scratch `slot`, returned. The products then read the copy with fp32 sums.
const __nv_bfloat16* to_bf16(Scratch slot, const float* src, int64_t n);
// The same rounding into dst (n values, 4-byte aligned), which the caller keeps.
void to_bf16_into(__nv_bfloat16* dst, const float* src, int64_t n);
inline __nv_bfloat16* as_bf16(uint16_t* p) { return reinterpret_cast<__nv_bfloat16*>(p); }
inline const __nv_bfloat16* as_bf16(const uint16_t* p) {
  return reinterpret_cast<const __nv_bfloat16*>(p);
}

// Column sums of a row-major (N, C) in a fixed order: blocks sum chunks of kChunkRows rows into
// partials (chunks, C), then sum_partials adds them in a fixed order (no atomics). dst = (or +=)
// the sums.
inline constexpr int kChunkRows = 64;  // 4x the blocks of 256: a GPT step's sums read at full speed
void sum_partials(float* dst, const float* partial, int chunks, int C, bool accumulate);
void column_sums(float* dst, const float* src, int N, int C, bool accumulate);

}  // namespace scratchgpt::cuda::detail
