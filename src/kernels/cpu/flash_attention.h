// flash_attention.h: fused causal multi-head self-attention that never stores the (T, T) score
// and weight matrices (FlashAttention-2 style): queries and keys are cut into tiles of kFlashTile
// rows, the forward keeps a running max and sum per row (online softmax) and skips the tiles above
// the diagonal; it saves only the row log-sum-exp, from which the backward recomputes the weights.
// Leaves out: dropout on the weights (that needs them stored: use cpu::attention_* then).
// ExecContext::dtype bf16 (--dtype bf16): the products' inputs rounded to bf16 values, sums in
// fp32: on vdpbf16ps at the AVX-512 level of a CPU with AVX512_BF16 (flash_attention_bf16_impl.h:
// GPT-2's heads at T = 1024 on a Zen 4, forward 12.2-13.1 -> 5.95-6.02 ms, backward 26.6-27.0 ->
// 14.1-14.5 against the FMAs on rounded values, which the other levels keep).
// Readable twins: kernels/ref/attention.h (same maths, stored matrices; in bf16
// ref::flash_attention_*_bf16, which round where this does). Deterministic: every output row is
// computed by one thread in a fixed order, so 1 and N threads give the same bits.
#pragma once

#include "core/exec_context.h"
namespace scratchgpt::cpu {

// Query rows per tile = key columns per tile (a multiple of 16; clamped to T rounded up to 16).
// bench/attention_bench, GPT-2 heads at T = 1024, one thread: tiles of 128 and 64 tie and beat 32
// and 16 (per-tile overheads); 128 is slightly ahead in the forward.
inline constexpr int kFlashTile = 128;

// qkv (B, T, 3C) as ref::attention_forward (q, k, v side by side, NH heads of HS = C/NH).
// out (B, T, C) = softmax(q k^T / sqrt(HS), causal) v per head; lse (B, NH, T) the natural log of
// each row's softmax denominator, on the scaled scores: lse = log(sum_j exp(q.k_j / sqrt(HS))).
void flash_attention_forward(const ExecContext& ex, float* out, float* lse, const float* qkv, int B,
                             int T, int C, int NH);

// Writes dqkv (B, T, 3C) (its old contents are not used) from dout (B, T, C), given out and lse of
// the forward.
// Backward of out = P v, P = softmax(S), S = q k^T * scale, with P recomputed as exp(S - lse):
// D = rowsum(dout * out); dv = P^T dout; dP = dout v^T; dS = P * (dP - D);
// dq = scale * dS k;  dk = scale * dS^T q.
void flash_attention_backward(const ExecContext& ex, float* dqkv, const float* dout,
                              const float* out, const float* lse, const float* qkv, int B, int T,
                              int C, int NH);

namespace detail {

// The same with a given tile (a positive multiple of 16), at ex.isa: for tests and
// benchmarks that try other tile sizes.
void flash_attention_forward_tiled(const ExecContext& ex, float* out, float* lse, const float* qkv,
                                   int B, int T, int C, int NH, int tile);
void flash_attention_backward_tiled(const ExecContext& ex, float* dqkv, const float* dout,
                                    const float* out, const float* lse, const float* qkv, int B,
                                    int T, int C, int NH, int tile);

}  // namespace detail

}  // namespace scratchgpt::cpu
