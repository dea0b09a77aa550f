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

// The portable rows: the reference's forward; its backward row by row, dweight and dbias added
// into the block's sums.
void layernorm_forward_rows_scalar(float* y, float* mean, float* rstd, const float* x,
                                   const float* w, const float* b, int64_t n, int C, float eps) {
  ref::layernorm_forward(y, mean, rstd, x, w, b, static_cast<int>(n), C, eps);
}

void layernorm_backward_rows_scalar(float* dx, float* dw, float* db, const float* dy,
                                    const float* x, const float* w, const float* mean,
                                    const float* rstd, int64_t n, int C) {
  for (int64_t i = 0; i < n; ++i, dx += C, dy += C, x += C) {
    float g_mean = 0, gx_mean = 0;
    for (int c = 0; c < C; ++c) {
      const float xh = (x[c] - mean[i]) * rstd[i], g = dy[c] * w[c];
      g_mean += g;
      gx_mean += g * xh;
    }
    g_mean /= C;
    gx_mean /= C;
    for (int c = 0; c < C; ++c) {
      const float xh = (x[c] - mean[i]) * rstd[i], g = dy[c] * w[c];
      dx[c] += rstd[i] * (g - g_mean - xh * gx_mean);
      dw[c] += dy[c] * xh;
      db[c] += dy[c];
    }
  }
}

}  // namespace

void layernorm_forward(const ExecContext& ex, float* out, float* mean, float* rstd,
                       const float* inp, const float* weight, const float* bias, int N, int C,
                       float eps) {
  const auto rows = pick(ex.isa, detail::layernorm_forward_rows_avx512,
                         detail::layernorm_forward_rows_avx2, layernorm_forward_rows_scalar);
  detail::for_rows(ex.workers(), N, C, [&](int64_t r0, int64_t r1) {
    rows(out + r0 * C, mean + r0, rstd + r0, inp + r0 * C, weight, bias, r1 - r0, C, eps);
  });
}

void layernorm_backward(const ExecContext& ex, float* dinp, float* dweight, float* dbias,
                        const float* dout, const float* inp, const float* weight, const float* mean,
                        const float* rstd, int N, int C) {
  const auto rows = pick(ex.isa, detail::layernorm_backward_rows_avx512,
                         detail::layernorm_backward_rows_avx2, layernorm_backward_rows_scalar);
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
      const int64_t n0 = blk * kRowBlock;
      rows(dinp + n0 * C, pw, pb, dout + n0 * C, inp + n0 * C, weight, mean + n0, rstd + n0,
           n1 - n0, C);
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
