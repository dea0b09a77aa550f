// gemm_avx512.cpp: the GEMM of gemm_impl.h compiled for AVX-512F (12 x 32 or 8 x 48 micro-kernels:
// 24 zmm accumulators), whatever the build's -march; only called when the CPU has AVX-512F and VL.
// Every header is included before the target pragma so no shared inline code gets AVX-512 bodies.
#include <immintrin.h>

#include <cstdint>

#include "kernels/cpu/gemm.h"
#include "core/simd_target.h"

SG_TARGET_BEGIN("avx512f,avx512vl,avx2,fma")

namespace scratchgpt::cpu::detail {
namespace {

#include "kernels/cpu/simd/vec_avx512.h"

#include "kernels/cpu/simd/gemm_impl.h"

}  // namespace

void gemm_avx512(const GemmArgs& g, ThreadPool& pool) {
  // Two tile shapes: 12 x 32 and 8 x 48, both 24 zmm accumulators. The one that pads C less wins,
  // 8 x 48 on a tie: GPT-2 at B*T = 256 rows is 22 strips of 12 (264 rows computed) but 32 of 8,
  // and measured 2-9% faster with 8 x 48 on one core; where both fit exactly (N a multiple of
  // 96: the small model's 384-wide qkv, shakespeare-char's layers) 8 x 48 measured 2-5% faster;
  // the small model's 128-wide products fit 32-wide panels (4 of them) but not 48-wide ones.
  // Each C element sums the same products in the same order either way, so the choice never
  // changes the results.
  if (padded_area<8, 48, 16>(g.M, g.N) <= padded_area<12, 32, 16>(g.M, g.N))
    return gemm_blocked<VecAvx512, 8, 3, 256, 768, 512>(g, pool);
  // K slices of 256 for few rows, 512 for many (measured on one core: shakespeare's lm_head
  // forward 128 -> 147 GFLOP/s, MLP down 190 -> 200; GPT-2's forward prefers 256).
  gemm_blocked<VecAvx512, 12, 2, 256, 768, 512>(g, pool);
}

}  // namespace scratchgpt::cpu::detail

SG_TARGET_END
