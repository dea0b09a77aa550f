// adamw.h: one AdamW step, fast: AVX-512 or AVX2 (16 or 8 floats at a time, simd/adamw_impl.h)
// threaded over fixed chunks. It makes the reference's operations in the reference's order with
// no fused multiply-add (IEEE sqrt and division are exact-rounded in both), so results equal the
// reference bit for bit. adamw_update_all does a whole parameter list in one threaded pass.
// adamw_update has the same name and signature as ref::adamw.h (float). Readable twin:
// kernels/ref/adamw.h.
#pragma once

#include <cstdint>

#include "core/exec_context.h"
#include "kernels/cpu/matmul.h"

namespace scratchgpt::cpu {

// param, grad, m, v (n); step t >= 1.
void adamw_update(const ExecContext& ex, float* param, const float* grad, float* m, float* v,
                  int64_t n, float lr, float beta1, float beta2, float eps, float weight_decay,
                  int t, float grad_scale = 1.0f);

// One array of a step over many: param, grad, m, v (n) and its weight decay. pairs (--dtype
// bf16; may be null): param is that weight (OC, C), also packed for the matrix products, and
// each block of its rows is packed again as soon as it is updated, while it is in cache (the
// words of matmul_pack_weight_bf16 after the step; not reading 4 bytes a weight back from memory).
struct AdamWArray {
  float* param;
  const float* grad;
  float* m;
  float* v;
  int64_t n;
  float weight_decay;
  const WeightPairsWords* pairs = nullptr;
};

// adamw_update on each of arrays[0, count) in one pass of the pool: each array cut into the same
// chunks adamw_update cuts it into (an array with pairs: into whole blocks of rows,
// matmul_weight_row_block), and all arrays' chunks shared out among the threads at once (a
// model's many small arrays no longer run one at a time on the caller). The same bits as
// adamw_update array by array. Allocates only when the chunk count grows.
void adamw_update_all(const ExecContext& ex, int count, const AdamWArray* arrays, float lr,
                      float beta1, float beta2, float eps, int t, float grad_scale = 1.0f);

}  // namespace scratchgpt::cpu
