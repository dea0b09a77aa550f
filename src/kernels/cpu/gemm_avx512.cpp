// gemm_avx512.cpp: the GEMM of gemm_impl.h compiled for AVX-512F (12 x 32 micro-kernel: 24 zmm
// accumulators), whatever the build's -march; only called when the CPU has AVX-512F and VL.
// Every header is included before the target pragma so no shared inline code gets AVX-512 bodies.
#include <immintrin.h>

#include <cstdint>

#include "kernels/cpu/gemm.h"

#pragma GCC push_options
#pragma GCC target("avx512f,avx512vl,avx2,fma")

namespace scratchgpt::cpu::detail {
namespace {

#include "kernels/cpu/vec_avx512.h"

#include "kernels/cpu/gemm_impl.h"

}  // namespace

void gemm_avx512(const GemmArgs& g, ThreadPool& pool) {
  // K slices of 256 for few rows, 512 for many (measured on one core: shakespeare's lm_head
  // forward 128 -> 147 GFLOP/s, MLP down 190 -> 200; GPT-2's forward prefers 256).
  gemm_blocked<VecAvx512, 12, 2, 256, 768, 512>(g, pool);
}

}  // namespace scratchgpt::cpu::detail

#pragma GCC pop_options
