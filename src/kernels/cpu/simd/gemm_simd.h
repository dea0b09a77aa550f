// gemm_simd.h: the per-ISA bodies of detail::gemm (gemm.h): the blocked GEMM of gemm_impl.h over a
// portable 4-float vector (gemm_scalar.cpp), AVX2+FMA (gemm_avx2.cpp) and AVX-512F
// (gemm_avx512.cpp), each threaded on `pool`; gemm.cpp picks one with pick(). Call the SIMD ones
// only on a CPU that has the set.
#pragma once

#include "core/thread_pool.h"
#include "kernels/cpu/gemm.h"

namespace scratchgpt::cpu::detail {

void gemm_scalar(const GemmArgs& g, ThreadPool& pool);
void gemm_avx2(const GemmArgs& g, ThreadPool& pool);
void gemm_avx512(const GemmArgs& g, ThreadPool& pool);

}  // namespace scratchgpt::cpu::detail
