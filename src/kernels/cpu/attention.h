// attention.h: causal multi-head self-attention, fast: same names, signatures and stored tensors as
// ref::attention.h (float). Per (b, h), threaded over B*NH on ex.workers(): the score matrix q k^T
// and the weighted sum att v (and the backward's four products) skip the tiles above the diagonal:
// register-blocked tile products over the whole head (simd/attention_impl.h) when T and the head
// size are whole vectors and T <= 256, else GEMMs (gemm.h); the row softmax uses vectorised exp.
// Each (b, h) is computed by one thread in a fixed order, so 1 and N threads give bitwise-identical
// results.
// Decision: this keeps the reference's stored (B, NH, T, T) att (needed for dropout on the weights,
// for the backward and for the lessons); flash_attention.h stores nothing T x T and takes long
// contexts without dropout (CausalSelfAttention::fused_min_T). preatt, dpreatt and datt are the
// reference's too, but a caller that has no use for them passes nullptr: each head's scores (and
// their gradient) then live in a per-thread (T, T) buffer that stays in cache, instead of going
// out to (B, NH, T, T) arrays (the small model, 2 threads: forward 0.085 -> 0.079 ms, backward
// 0.175 -> 0.141 ms a layer; and no memory for them).
// Scratch: grow-once per-thread buffers: (T, T) when a dropout mask is given or preatt / datt is
// nullptr; (HS, T) for the tile products.
// Readable twin: kernels/ref/attention.h.
#pragma once

#include "core/exec_context.h"
namespace scratchgpt::cpu {

// qkv (B, T, 3C); out (B, T, C); preatt (or nullptr: not kept), att (B, NH, T, T); drop
// (B, NH, T, T) scaled dropout mask or nullptr. HS = C / NH. See ref::attention_forward.
void attention_forward(const ExecContext& ex, float* out, float* preatt, float* att,
                       const float* qkv, const float* drop, int B, int T, int C, int NH);

// Writes dqkv (B, T, 3C) (its old contents are not used: each (b, h) writes its q, k and v
// columns with one product each); dpreatt, datt (B, NH, T, T) are overwritten with the
// gradients of preatt and att (datt scaled as the reference's), or nullptr: not kept.
void attention_backward(const ExecContext& ex, float* dqkv, float* dpreatt, float* datt,
                        const float* dout, const float* qkv, const float* att, const float* drop,
                        int B, int T, int C, int NH);

}  // namespace scratchgpt::cpu
