// relu.cpp: cpu::relu_forward/backward: the reference loop over fixed chunks in parallel (see relu.h). The reference template is instantiated here,
// where -march lets the compiler vectorise it; the split over threads never changes a result.
#include <cstdint>

#include "kernels/cpu/relu.h"
#include "kernels/cpu/parallel.h"
#include "kernels/ref/relu.h"

namespace scratchgpt::cpu {

using detail::for_chunks;

void relu_forward(const ExecContext& ex, float* out, const float* inp, int64_t n) {
  for_chunks(ex.workers(), n,
             [&](int64_t b, int64_t e) { ref::relu_forward(out + b, inp + b, e - b); });
}

void relu_backward(const ExecContext& ex, float* dinp, const float* inp, const float* dout,
                   int64_t n) {
  for_chunks(ex.workers(), n,
             [&](int64_t b, int64_t e) { ref::relu_backward(dinp + b, inp + b, dout + b, e - b); });
}

}  // namespace scratchgpt::cpu
