// crossentropy.h: fused softmax + cross-entropy, fast: rows threaded and vectorised (AVX-512 or
// AVX2 exp, simd/crossentropy_impl.h; portable fallback: the reference loop per row).
// Same names and signatures as ref::crossentropy.h (float). Twin: kernels/ref/crossentropy.h.
#pragma once

#include <cstdint>

#include "core/exec_context.h"

namespace scratchgpt::cpu {

// losses (N); probs (N, V) saved for backward; logits (N, V); targets (N) in [0, V).
void crossentropy_forward(const ExecContext& ex, float* losses, float* probs, const float* logits,
                          const int32_t* targets, int N, int V);
// Writes dlogits[n] = dlosses[n] * (probs[n] - onehot(targets[n])) (dlogits is not read).
void crossentropy_backward(const ExecContext& ex, float* dlogits, const float* probs,
                           const int32_t* targets, const float* dlosses, int N, int V);

}  // namespace scratchgpt::cpu
