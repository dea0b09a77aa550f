// flash_attention.cpp: cpu::flash_attention_* (see flash_attention.h): checks the arguments and
// picks the per-ISA body for cpu::simd_level().
#include "kernels/cpu/flash_attention.h"

#include "core/check.h"
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

void flash_attention_forward_tiled(float* out, float* lse, const float* qkv, int B, int T, int C,
                                   int NH, int tile) {
  check_args(B, T, C, NH, tile);
  pick(flash_forward_avx512, flash_forward_avx2, flash_forward_scalar)(out, lse, qkv, B, T, C, NH,
                                                                      tile);
}

void flash_attention_backward_tiled(float* dqkv, const float* dout, const float* out,
                                    const float* lse, const float* qkv, int B, int T, int C, int NH,
                                    int tile) {
  check_args(B, T, C, NH, tile);
  pick(flash_backward_avx512, flash_backward_avx2, flash_backward_scalar)(dqkv, dout, out, lse, qkv,
                                                                         B, T, C, NH, tile);
}

}  // namespace detail

void flash_attention_forward(float* out, float* lse, const float* qkv, int B, int T, int C,
                             int NH) {
  detail::flash_attention_forward_tiled(out, lse, qkv, B, T, C, NH, kFlashTile);
}

void flash_attention_backward(float* dqkv, const float* dout, const float* out, const float* lse,
                              const float* qkv, int B, int T, int C, int NH) {
  detail::flash_attention_backward_tiled(dqkv, dout, out, lse, qkv, B, T, C, NH, kFlashTile);
}

}  // namespace scratchgpt::cpu
