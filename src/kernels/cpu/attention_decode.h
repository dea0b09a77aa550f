// attention_decode.h: causal multi-head attention for one new query against a KV cache (batch 1
// decoding): per head, scores = q k^T / sqrt(HS) over the cached positions, softmax, then the
// weighted sum of the cached values. Costs O(n_ctx * C) per token instead of the full (T, T) of
// attention_forward. The cache is read in chunks of kDecodeChunk positions, each row whole (the
// chunks are threaded on ex.workers()): every chunk computes all heads' scores, its own softmax
// numerators against its own max and their weighted sum of values; the chunks are then joined in
// order, rescaled to the global max (as flash-decoding does). A chunk is computed by one thread
// and the join is serial, so 1 and N threads give the same bits.
// Leaves out: dropout (inference only), batches. Readable twin: the last row of
// ref::attention_forward over the whole sequence (kernels/ref/attention.h).
#pragma once

#include <cstdint>

#include "core/exec_context.h"

namespace scratchgpt::cpu {

inline constexpr int kDecodeChunk = 32;  // cached positions per chunk

// Floats of scratch attention_decode_forward needs for n_ctx cached positions, C channels and NH
// heads: per chunk, NH * (kDecodeChunk + 2) + C; at least NH * 2 * (n_ctx + 16), the CUDA
// kernel's per-head scores (kernels/cuda/attention_decode.cu).
inline int64_t attention_decode_scratch_floats(int n_ctx, int C, int NH) {
  const int64_t chunks = (n_ctx + kDecodeChunk - 1) / kDecodeChunk;
  const int64_t cpu = chunks * (int64_t{NH} * (kDecodeChunk + 2) + C);
  const int64_t cuda = int64_t{NH} * 2 * (n_ctx + 16);
  return cpu > cuda ? cpu : cuda;
}

// out (C) = attention of q (C) over positions 0..n_ctx-1 of k_cache and v_cache (n_ctx, C) (the
// new token's own key and value included as the last row); heads of HS = C / NH contiguous
// channels. scratch: attention_decode_scratch_floats(n_ctx, C, NH) floats.
void attention_decode_forward(const ExecContext& ex, float* out, const float* q,
                              const float* k_cache, const float* v_cache, int n_ctx, int C, int NH,
                              float* scratch);

}  // namespace scratchgpt::cpu
