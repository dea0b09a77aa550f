// matvec_avx2.cpp: the matvec row kernel of matvec_impl.h compiled for AVX2+FMA (8 lanes, up to 8
// accumulators per row group), whatever the build's -march; only called when the CPU has both.
// Every header is included before the target pragma so no shared inline code gets AVX2 bodies.
#include <immintrin.h>

#include <cstdint>

#include "kernels/cpu/matvec.h"
#include "core/simd_target.h"

SG_TARGET_BEGIN("avx2,fma")

namespace scratchgpt::cpu::detail {
namespace {

#include "kernels/cpu/simd/vec_avx2.h"

#include "kernels/cpu/simd/matvec_impl.h"

}  // namespace

void matvec_rows_avx2(float* out, const float* inp, const float* weight, int64_t ldw,
                      const float* bias, int N, int C, int OC, int o_begin, int o_end) {
  matvec_rows<VecAvx2>(out, inp, weight, ldw, bias, N, C, OC, o_begin, o_end);
}

}  // namespace scratchgpt::cpu::detail

SG_TARGET_END
