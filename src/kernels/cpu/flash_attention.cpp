// flash_attention.cpp: cpu::flash_attention_* (see flash_attention.h): checks the arguments and
// picks the per-ISA body for the context's level and runs it on its pool.
#include "kernels/cpu/flash_attention.h"

#include "core/check.h"
#include "kernels/cpu/simd/flash_attention_bf16_simd.h"
#include "kernels/cpu/simd/flash_attention_simd.h"
#include "kernels/cpu/simd/simd.h"

namespace scratchgpt::cpu {

namespace {
void check_args(int B, int T, int C, int NH, int tile) {
  SG_CHECK(B > 0 && T > 0 && C > 0 && NH > 0 && C % NH == 0, "flash attention: bad shape B=", B,
           " T=", T, " C=", C, " NH=", NH, " (need positive sizes and C divisible by NH)");
  SG_CHECK(tile > 0 && tile % 16 == 0, "flash attention: tile ", tile,
           " must be a positive multiple of 16");
}
}  // namespace

namespace detail {

namespace {
// bf16 at the AVX-512 level on a CPU with AVX512_BF16: the products on vdpbf16ps
// (flash_attention_bf16_impl.h); else flash_attention_impl.h's, rounding the same values.
bool vdpbf16ps(const ExecContext& ex) {
  return ex.dtype == Dtype::kBf16 && ex.isa == SimdLevel::kAvx512 && cpu_has_avx512_bf16();
}
}  // namespace

void flash_attention_forward_tiled(const ExecContext& ex, float* out, float* lse, const float* qkv,
                                   int B, int T, int C, int NH, int tile) {
  check_args(B, T, C, NH, tile);
  if (vdpbf16ps(ex))
    return flash_forward_bf16_avx512(out, lse, qkv, B, T, C, NH, tile, ex.workers());
  pick(ex.isa, flash_forward_avx512, flash_forward_avx2, flash_forward_scalar)(
      out, lse, qkv, B, T, C, NH, tile, ex.dtype == Dtype::kBf16, ex.workers());
}

void flash_attention_backward_tiled(const ExecContext& ex, float* dqkv, const float* dout,
                                    const float* out, const float* lse, const float* qkv, int B,
                                    int T, int C, int NH, int tile) {
  check_args(B, T, C, NH, tile);
  if (vdpbf16ps(ex))
    return flash_backward_bf16_avx512(dqkv, dout, out, lse, qkv, B, T, C, NH, tile, ex.workers());
  pick(ex.isa, flash_backward_avx512, flash_backward_avx2, flash_backward_scalar)(
      dqkv, dout, out, lse, qkv, B, T, C, NH, tile, ex.dtype == Dtype::kBf16, ex.workers());
}

}  // namespace detail

void flash_attention_forward(const ExecContext& ex, float* out, float* lse, const float* qkv, int B,
                             int T, int C, int NH) {
  detail::flash_attention_forward_tiled(ex, out, lse, qkv, B, T, C, NH, kFlashTile);
}

void flash_attention_backward(const ExecContext& ex, float* dqkv, const float* dout,
                              const float* out, const float* lse, const float* qkv, int B, int T,
                              int C, int NH) {
  detail::flash_attention_backward_tiled(ex, dqkv, dout, out, lse, qkv, B, T, C, NH, kFlashTile);
}

}  // namespace scratchgpt::cpu
