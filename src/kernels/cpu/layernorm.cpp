// layernorm.cpp: cpu::layernorm_forward/backward (see layernorm.h). Rows are independent and
// each is computed by one thread; the parameter gradients go by column ranges, rows in order.
// The rows are the per-ISA kernels of simd/layernorm_impl.h (AVX-512 or AVX2); the portable
// path calls the reference.
#include "kernels/cpu/layernorm.h"

#include <cstdint>

#include "kernels/cpu/parallel.h"
#include "kernels/cpu/simd/layernorm_simd.h"
#include "kernels/cpu/simd/simd.h"
#include "kernels/ref/layernorm.h"

namespace scratchgpt::cpu {

namespace {

// The portable rows: the reference's forward on one row; its backward's dinp part on one row
// (the reference also accumulates dweight and dbias, which go by columns below).
void layernorm_row_scalar(float* y, float* mean, float* rstd, const float* x, const float* w,
                          const float* b, int C, float eps) {
  ref::layernorm_forward(y, mean, rstd, x, w, b, 1, C, eps);
}

void layernorm_back_row_scalar(float* dx, const float* dy, const float* x, const float* w,
                               float mean, float rstd, int C) {
  float g_mean = 0, gx_mean = 0;
  for (int c = 0; c < C; ++c) {
    const float xh = (x[c] - mean) * rstd, g = dy[c] * w[c];
    g_mean += g;
    gx_mean += g * xh;
  }
  g_mean /= C;
  gx_mean /= C;
  for (int c = 0; c < C; ++c) {
    const float xh = (x[c] - mean) * rstd, g = dy[c] * w[c];
    dx[c] += rstd * (g - g_mean - xh * gx_mean);
  }
}

}  // namespace

void layernorm_forward(const ExecContext& ex, float* out, float* mean, float* rstd,
                       const float* inp, const float* weight, const float* bias, int N, int C,
                       float eps) {
  const auto row =
      pick(ex.isa, detail::layernorm_row_avx512, detail::layernorm_row_avx2, layernorm_row_scalar);
  detail::for_rows(ex.workers(), N, C, [&](int64_t r0, int64_t r1) {
    for (int64_t n = r0; n < r1; ++n)
      row(out + n * C, mean + n, rstd + n, inp + n * C, weight, bias, C, eps);
  });
}

void layernorm_backward(const ExecContext& ex, float* dinp, float* dweight, float* dbias,
                        const float* dout, const float* inp, const float* weight, const float* mean,
                        const float* rstd, int N, int C) {
  const auto row = pick(ex.isa, detail::layernorm_back_row_avx512, detail::layernorm_back_row_avx2,
                        layernorm_back_row_scalar);
  // dinp: rows in parallel.
  detail::for_rows(ex.workers(), N, C, [&](int64_t r0, int64_t r1) {
    for (int64_t n = r0; n < r1; ++n)
      row(dinp + n * C, dout + n * C, inp + n * C, weight, mean[n], rstd[n], C);
  });
  // dweight, dbias: column ranges in parallel, rows in order (the reference's order). Each range's
  // sums live in local arrays (registers) while the rows stream past, loaded from and stored to
  // the gradients once: the same additions in the same order as adding into them row by row,
  // without a load and a store of both per element (the compiler must assume they alias dout).
  constexpr int kCols = 64;
  const int64_t ranges = (C + kCols - 1) / kCols;
  auto columns = [&](int64_t begin, int64_t end) {
    for (int64_t r = begin; r < end; ++r) {
      const int c0 = static_cast<int>(r) * kCols;
      const int w = C - c0 < kCols ? C - c0 : kCols;
      float db[kCols], dw[kCols];
      for (int j = 0; j < w; ++j) db[j] = dbias[c0 + j], dw[j] = dweight[c0 + j];
      for (int n = 0; n < N; ++n) {
        const float* x = inp + static_cast<int64_t>(n) * C + c0;
        const float* dy = dout + static_cast<int64_t>(n) * C + c0;
        const float m = mean[n], s = rstd[n];
        for (int j = 0; j < w; ++j) {
          const float xhat = (x[j] - m) * s;
          db[j] += dy[j];
          dw[j] += dy[j] * xhat;
        }
      }
      for (int j = 0; j < w; ++j) dbias[c0 + j] = db[j], dweight[c0 + j] = dw[j];
    }
  };
  if (static_cast<int64_t>(N) * C < 2 * detail::kChunk || ranges == 1)
    columns(0, ranges);
  else
    ex.workers().parallel_for(ranges, [&](int64_t b, int64_t e, int) { columns(b, e); });
}

}  // namespace scratchgpt::cpu
