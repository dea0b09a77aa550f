// adamw.h: one AdamW step, fast: AVX-512 or AVX2 (16 or 8 floats at a time, simd/adamw_impl.h)
// threaded over fixed chunks. It makes the reference's operations in the reference's order with
// no fused multiply-add (IEEE sqrt and division are exact-rounded in both), so results equal the
// reference bit for bit.
// Same name and signature as ref::adamw.h (float). Readable twin: kernels/ref/adamw.h.
#pragma once

#include <cstdint>

#include "core/exec_context.h"

namespace scratchgpt::cpu {

// param, grad, m, v (n); step t >= 1.
void adamw_update(const ExecContext& ex, float* param, const float* grad, float* m, float* v,
                  int64_t n, float lr, float beta1, float beta2, float eps, float weight_decay,
                  int t, float grad_scale = 1.0f);

}  // namespace scratchgpt::cpu
