// dropout.cpp: cpu::dropout_forward/backward (with a mask drawn by the caller): the reference loop over fixed chunks in parallel (see dropout.h). The reference template is instantiated here,
// where -march lets the compiler vectorise it; the split over threads never changes a result.
#include <cstdint>

#include "kernels/cpu/dropout.h"
#include "kernels/cpu/parallel.h"
#include "kernels/ref/dropout.h"

namespace scratchgpt::cpu {

using detail::for_chunks;

void dropout_forward(const ExecContext& ex, float* out, float* mask, const float* inp, int64_t n,
                     float p) {
  for_chunks(ex.workers(), n, [&](int64_t b, int64_t e) {
    ref::dropout_forward(out + b, mask + b, inp + b, e - b, p);
  });
}

void dropout_backward(const ExecContext& ex, float* dinp, const float* dout, const float* mask,
                      int64_t n, bool accumulate) {
  for_chunks(ex.workers(), n, [&](int64_t b, int64_t e) {
    ref::dropout_backward(dinp + b, dout + b, mask + b, e - b, accumulate);
  });
}

}  // namespace scratchgpt::cpu
