// softmax.cpp: cpu::softmax_forward/backward (see softmax.h). Rows are independent and each is
// computed by one thread, so the split over threads never changes a result. The rows are the
// per-ISA kernels of simd/softmax_impl.h (AVX-512 or AVX2); the portable path calls the reference.
#include "kernels/cpu/softmax.h"

#include <cstdint>

#include "kernels/cpu/parallel.h"
#include "kernels/cpu/simd/simd.h"
#include "kernels/cpu/simd/softmax_simd.h"
#include "kernels/ref/softmax.h"

namespace scratchgpt::cpu {

namespace {

// The portable rows: the reference on one row.
void softmax_row_scalar(float* y, const float* x, int C) { ref::softmax_forward(y, x, 1, C); }

void softmax_back_row_scalar(float* dx, const float* dy, const float* y, int C) {
  ref::softmax_backward(dx, dy, y, 1, C);
}

}  // namespace

void softmax_forward(const ExecContext& ex, float* out, const float* inp, int N, int C) {
  const auto row =
      pick(ex.isa, detail::softmax_row_avx512, detail::softmax_row_avx2, softmax_row_scalar);
  detail::for_rows(ex.workers(), N, C, [&](int64_t r0, int64_t r1) {
    for (int64_t n = r0; n < r1; ++n) row(out + n * C, inp + n * C, C);
  });
}

void softmax_backward(const ExecContext& ex, float* dinp, const float* dout, const float* out,
                      int N, int C) {
  const auto row = pick(ex.isa, detail::softmax_back_row_avx512, detail::softmax_back_row_avx2,
                        softmax_back_row_scalar);
  detail::for_rows(ex.workers(), N, C, [&](int64_t r0, int64_t r1) {
    for (int64_t n = r0; n < r1; ++n) row(dinp + n * C, dout + n * C, out + n * C, C);
  });
}

}  // namespace scratchgpt::cpu
