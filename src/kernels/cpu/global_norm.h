// global_norm.h: the global L2 norm of several arrays taken together (the gradient norm that
// clipping needs), fast: the arrays are cut into pieces of at most kPiece elements, numbered in
// order; threads sum pieces (in double, 8 running sums each), and the pieces' sums are added in
// order, so the result is the same for any thread count. Allocates only when the piece count
// grows. Same name and signature as ref::global_norm.h (float). Readable twin: kernels/ref/global_norm.h.
#pragma once

#include <cstdint>

#include "core/exec_context.h"

namespace scratchgpt::cpu {

constexpr int64_t kGlobalNormPiece = 16384;

// x[a] holds n[a] elements, for a in [0, count).
double global_norm(const ExecContext& ex, int count, const float* const* x, const int64_t* n);

}  // namespace scratchgpt::cpu
