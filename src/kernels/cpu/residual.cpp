// residual.cpp: cpu::residual_forward: the reference loop over fixed chunks in parallel (see
// residual.h). The reference template is instantiated here, where -march lets the compiler
// vectorise it; the split over threads never changes a result.
#include <cstdint>

#include "kernels/cpu/residual.h"
#include "kernels/cpu/parallel.h"
#include "kernels/ref/residual.h"

namespace scratchgpt::cpu {

using detail::for_chunks;

void residual_forward(const ExecContext& ex, float* out, const float* a, const float* b,
                      int64_t n) {
  for_chunks(ex.workers(), n, [&](int64_t i0, int64_t i1) {
    ref::residual_forward(out + i0, a + i0, b + i0, i1 - i0);
  });
}

}  // namespace scratchgpt::cpu
