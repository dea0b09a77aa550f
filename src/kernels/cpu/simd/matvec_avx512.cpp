// matvec_avx512.cpp: the matvec row kernel of matvec_impl.h compiled for AVX-512F (16 lanes, up to
// 16 accumulators per row group), whatever the build's -march; only called when the CPU has
// AVX-512F and VL. Every header is included before the target pragma so no shared inline code
// gets AVX-512 bodies. GCC 12 flags the _mm256_undefined_pd() inside the reduction intrinsic as
// (maybe) uninitialized, a false positive of the intrinsics header (see
// flash_attention_avx512.cpp).
#pragma GCC diagnostic ignored "-Wuninitialized"
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"

#include <immintrin.h>

#include <cstdint>

#include "kernels/cpu/matvec.h"
#include "core/simd_target.h"

SG_TARGET_BEGIN("avx512f,avx512vl,avx2,fma")

namespace scratchgpt::cpu::detail {
namespace {

#include "kernels/cpu/simd/vec_avx512.h"

#include "kernels/cpu/simd/matvec_impl.h"

}  // namespace

void matvec_rows_avx512(float* out, const float* inp, const float* weight, int64_t ldw,
                        const float* bias, int N, int C, int OC, int o_begin, int o_end) {
  matvec_rows<VecAvx512>(out, inp, weight, ldw, bias, N, C, OC, o_begin, o_end);
}

}  // namespace scratchgpt::cpu::detail

SG_TARGET_END
