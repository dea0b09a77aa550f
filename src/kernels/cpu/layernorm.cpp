// layernorm.cpp: cpu::layernorm_forward/backward (see layernorm.h). Rows are independent and
// each is computed by one thread; the parameter gradients are summed per block of rows.
// The rows are the per-ISA kernels of simd/layernorm_impl.h (AVX-512 or AVX2); the portable
// path calls the reference.
#include "kernels/cpu/layernorm.h"

#include <cstdint>

#include "kernels/cpu/gemm.h"
#include "kernels/cpu/parallel.h"
#include "kernels/cpu/simd/layernorm_simd.h"
#include "kernels/cpu/simd/simd.h"
#include "kernels/ref/layernorm.h"

namespace scratchgpt::cpu {

namespace {

// The portable rows: the reference's forward on one row; its backward on one row, dweight and
// dbias added into the row's block sums.
void layernorm_row_scalar(float* y, float* mean, float* rstd, const float* x, const float* w,
                          const float* b, int C, float eps) {
  ref::layernorm_forward(y, mean, rstd, x, w, b, 1, C, eps);
}

void layernorm_back_row_scalar(float* dx, float* dw, float* db, const float* dy, const float* x,
                               const float* w, float mean, float rstd, int C) {
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
    dw[c] += dy[c] * xh;
    db[c] += dy[c];
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
  // Rows in parallel, in blocks of kRowBlock rows; each block sums its rows' parameter gradients,
  // in row order, into its own partial (dweight, dbias), and the partials are added in block
  // order: the same sums with any thread count, and one pass over dout and inp.
  constexpr int kRowBlock = 64;
  const int64_t blocks = (N + kRowBlock - 1) / kRowBlock;
  float* partial = detail::thread_buffer(3, static_cast<size_t>(blocks) * 2 * C);  // (blocks, 2, C)
  auto run = [&](int64_t b0, int64_t b1) {
    for (int64_t blk = b0; blk < b1; ++blk) {
      float* pw = partial + blk * 2 * C;  // (C)
      float* pb = pw + C;                 // (C)
      for (int c = 0; c < C; ++c) pw[c] = 0.0f, pb[c] = 0.0f;
      const int64_t n1 = (blk + 1) * kRowBlock < N ? (blk + 1) * kRowBlock : N;
      for (int64_t n = blk * kRowBlock; n < n1; ++n)
        row(dinp + n * C, pw, pb, dout + n * C, inp + n * C, weight, mean[n], rstd[n], C);
    }
  };
  if (static_cast<int64_t>(N) * C < 2 * detail::kChunk || blocks == 1)
    run(0, blocks);
  else
    ex.workers().parallel_for(blocks, [&](int64_t b, int64_t e, int) { run(b, e); });
  for (int64_t blk = 0; blk < blocks; ++blk) {
    const float* pw = partial + blk * 2 * C;
    const float* pb = pw + C;
    for (int c = 0; c < C; ++c) dweight[c] += pw[c], dbias[c] += pb[c];
  }
}

}  // namespace scratchgpt::cpu
