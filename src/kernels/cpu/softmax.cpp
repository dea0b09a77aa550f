// softmax.cpp: cpu::softmax_forward/backward (see softmax.h). Rows are independent and each is
// computed by one thread, so the split over threads never changes a result. AVX2 code per row
// (AVX-512 machines run it too); the portable path calls the reference.
#include <immintrin.h>

#include <cmath>
#include <cstdint>
#include <limits>

#include "kernels/cpu/softmax.h"
#include "kernels/ref/softmax.h"
#include "core/simd_target.h"
#include "kernels/cpu/parallel.h"
#include "kernels/cpu/simd/simd.h"

namespace scratchgpt::cpu {

namespace {

SG_TARGET_BEGIN("avx2,fma")

#include "kernels/cpu/simd/vec_math_avx2.h"
#include "kernels/cpu/simd/rows_avx2.h"

void softmax_row_avx2(float* y, const float* x, int C) {
  const float sum = row_exp(y, x, row_max(x, C), C);
  row_scale(y, 1.0f / sum, C);
}

void softmax_back_row_avx2(float* dx, const float* dy, const float* y, int C) {
  __m256 vd = _mm256_setzero_ps();
  int c = 0;
  for (; c + 8 <= C; c += 8)
    vd = _mm256_fmadd_ps(_mm256_loadu_ps(dy + c), _mm256_loadu_ps(y + c), vd);
  float dot = hsum8(vd);
  for (; c < C; ++c) dot += dy[c] * y[c];
  const __m256 vdot = _mm256_set1_ps(dot);
  for (c = 0; c + 8 <= C; c += 8) {
    const __m256 t = _mm256_mul_ps(_mm256_loadu_ps(y + c), _mm256_sub_ps(_mm256_loadu_ps(dy + c), vdot));
    _mm256_storeu_ps(dx + c, _mm256_add_ps(_mm256_loadu_ps(dx + c), t));
  }
  for (; c < C; ++c) dx[c] += y[c] * (dy[c] - dot);
}

SG_TARGET_END

// The portable rows: the reference on one row.
void softmax_row_scalar(float* y, const float* x, int C) { ref::softmax_forward(y, x, 1, C); }

void softmax_back_row_scalar(float* dx, const float* dy, const float* y, int C) {
  ref::softmax_backward(dx, dy, y, 1, C);
}

}  // namespace

void softmax_forward(const ExecContext& ex, float* out, const float* inp, int N, int C) {
  const auto row = pick(ex.isa, softmax_row_avx2, softmax_row_avx2, softmax_row_scalar);
  detail::for_rows(ex.workers(), N, C, [&](int64_t r0, int64_t r1) {
    for (int64_t n = r0; n < r1; ++n) row(out + n * C, inp + n * C, C);
  });
}

void softmax_backward(const ExecContext& ex, float* dinp, const float* dout, const float* out,
                      int N, int C) {
  const auto row =
      pick(ex.isa, softmax_back_row_avx2, softmax_back_row_avx2, softmax_back_row_scalar);
  detail::for_rows(ex.workers(), N, C, [&](int64_t r0, int64_t r1) {
    for (int64_t n = r0; n < r1; ++n) row(dinp + n * C, dout + n * C, out + n * C, C);
  });
}

}  // namespace scratchgpt::cpu
