// adamw.h: one AdamW step, fast: ref::adamw_update threaded over fixed chunks (vectorised by the
// compiler; no fused multiply-add, so results equal the reference bit for bit).
// Same name and signature as ref::adamw.h (float). Readable twin: kernels/ref/adamw.h.
#pragma once

#include <cstdint>

namespace scratchgpt::cpu {

// param, grad, m, v (n); step t >= 1.
void adamw_update(float* param, const float* grad, float* m, float* v, int64_t n, float lr,
                  float beta1, float beta2, float eps, float weight_decay, int t);

}  // namespace scratchgpt::cpu
