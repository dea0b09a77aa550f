// encoder.h: token + position embedding, fast: forward threaded over (b, t) rows; backward (a
// scatter-add into dwte) threaded over column ranges of C, each thread walking all (b, t) in the
// reference's order, so dwte/dwpe equal the reference bit for bit with any thread count.
// Same names and signatures as ref::encoder.h (float). Readable twin: kernels/ref/encoder.h.
#pragma once

#include <cstdint>

#include "core/exec_context.h"

namespace scratchgpt::cpu {

// out (B, T, C); inp (B, T) token ids; wte (V, C); wpe (maxT, C) or nullptr.
void encoder_forward(const ExecContext& ex, float* out, const int32_t* inp, const float* wte,
                     const float* wpe, int B, int T, int C);
// Accumulates: dwte[inp[b,t]] += dout[b,t]; dwpe[t] += dout[b,t] (dwpe may be null).
void encoder_backward(const ExecContext& ex, float* dwte, float* dwpe, const float* dout,
                      const int32_t* inp, int B, int T, int C);

}  // namespace scratchgpt::cpu
