// fill.h: clearing, copying, filling and scaling a buffer, fast: memset and memcpy over fixed chunks on the
// context's pool (the gradients of GPT-2 small are 0.5 GB to clear every step, which one thread
// does at about half the speed of two). Same names and signatures as ref::fill.h (float).
// Readable twin: kernels/ref/fill.h.
#pragma once

#include <cstdint>

#include "core/exec_context.h"

namespace scratchgpt::cpu {

// x (n) = 0
void zero(const ExecContext& ex, float* x, int64_t n);
// dst (n) = src (n); the two must not overlap.
void copy(const ExecContext& ex, float* dst, const float* src, int64_t n);
// x (n) = value
void fill(const ExecContext& ex, float* x, int64_t n, float value);
// x (n) *= s
void scale(const ExecContext& ex, float* x, int64_t n, float s);

}  // namespace scratchgpt::cpu
