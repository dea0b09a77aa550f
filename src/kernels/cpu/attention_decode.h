// attention_decode.h: causal multi-head attention for one new query against a KV cache (batch 1
// decoding): per head, scores = q k^T / sqrt(HS) over the cached positions, softmax, then the
// weighted sum of the cached values. Costs O(n_ctx * C) per token instead of the full (T, T) of
// attention_forward. Heads are threaded on ex.workers(); each head is computed by one
// thread in a fixed order (dot products through matvec.h), so 1 and N threads give the same bits.
// Leaves out: dropout (inference only), batches. Readable twin: the last row of
// ref::attention_forward over the whole sequence (kernels/ref/attention.h).
#pragma once

#include <cstdint>

#include "core/exec_context.h"

namespace scratchgpt::cpu {

// Floats of scratch attention_decode_forward needs for n_ctx cached positions and NH heads.
inline int64_t attention_decode_scratch_floats(int n_ctx, int NH) {
  return int64_t{NH} * 2 * (n_ctx + 16);
}

// out (C) = attention of q (C) over positions 0..n_ctx-1 of k_cache and v_cache (n_ctx, C) (the
// new token's own key and value included as the last row); heads of HS = C / NH contiguous
// channels. scratch: attention_decode_scratch_floats(n_ctx, NH) floats.
void attention_decode_forward(const ExecContext& ex, float* out, const float* q,
                              const float* k_cache, const float* v_cache, int n_ctx, int C, int NH,
                              float* scratch);

}  // namespace scratchgpt::cpu
