// gemm_bf16_scalar.cpp: the pair GEMM of gemm_bf16_impl.h over plain floats, four lanes
// (PairsPlain<4>: for CPUs without AVX2 and to test the blocking on its own).
#include <cstdint>

#include "kernels/cpu/simd/gemm_bf16_simd.h"

namespace scratchgpt::cpu::detail {
namespace {

#include "kernels/cpu/simd/gemm_bf16_impl.h"

}  // namespace

using Path = Blocking<PairsPlain<4>, 4, 1, 128, 256>;

void gemm_bf16_scalar(const GemmArgs& g, ThreadPool& pool) { gemm_bf16_blocked<Path>(g, pool); }
void gemm_bf16_pack_b_scalar(const GemmArgs& g, uint32_t* out, int k0, int k1, int j0, int j1,
                             ThreadPool& pool) {
  pack_b_part<Path>(g, out, k0, k1, j0, j1, pool);
}
int gemm_bf16_nr_scalar(int) { return Path::NR; }
void gemm_bf16_round_scalar(uint16_t* out, const float* x, int64_t n) { round_row(out, x, n); }
void gemm_bf16_round_transposed_scalar(uint16_t* out, int64_t ld_out, const float* x, int64_t ld,
                                       int rows, int cols) {
  round_transposed(out, ld_out, x, ld, rows, cols);
}

}  // namespace scratchgpt::cpu::detail
