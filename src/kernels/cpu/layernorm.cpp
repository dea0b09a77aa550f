// layernorm.cpp: cpu::layernorm_forward/backward (see layernorm.h). Rows are independent and
// each is computed by one thread; the parameter gradients go by column ranges, rows in order.
// AVX2 code per row (AVX-512 machines run it too); the portable path calls the reference.
#include <immintrin.h>

#include <cmath>
#include <cstdint>
#include <limits>

#include "kernels/cpu/layernorm.h"
#include "kernels/ref/layernorm.h"
#include "core/simd_target.h"
#include "kernels/cpu/parallel.h"
#include "kernels/cpu/simd/simd.h"

namespace scratchgpt::cpu {

namespace {

SG_TARGET_BEGIN("avx2,fma")

#include "kernels/cpu/simd/vec_math_avx2.h"
#include "kernels/cpu/simd/rows_avx2.h"

void layernorm_row_avx2(float* y, float* mean, float* rstd, const float* x, const float* w,
                        const float* b, int C, float eps) {
  const float m = row_sum(x, C) / C;
  const __m256 vm = _mm256_set1_ps(m);
  __m256 vv = _mm256_setzero_ps();
  int c = 0;
  for (; c + 8 <= C; c += 8) {
    const __m256 d = _mm256_sub_ps(_mm256_loadu_ps(x + c), vm);
    vv = _mm256_fmadd_ps(d, d, vv);
  }
  float v = hsum8(vv);
  for (; c < C; ++c) v += (x[c] - m) * (x[c] - m);
  v /= C;
  const float s = 1.0f / std::sqrt(v + eps);
  const __m256 vs = _mm256_set1_ps(s);
  for (c = 0; c + 8 <= C; c += 8) {
    const __m256 xh = _mm256_mul_ps(_mm256_sub_ps(_mm256_loadu_ps(x + c), vm), vs);
    _mm256_storeu_ps(y + c, _mm256_fmadd_ps(xh, _mm256_loadu_ps(w + c), _mm256_loadu_ps(b + c)));
  }
  for (; c < C; ++c) y[c] = (x[c] - m) * s * w[c] + b[c];
  *mean = m;
  *rstd = s;
}

// dx += rstd * (g - mean(g) - xhat * mean(g * xhat)), g = dy * w, xhat = (x - mean) * rstd.
void layernorm_back_row_avx2(float* dx, const float* dy, const float* x, const float* w,
                             float mean, float rstd, int C) {
  const __m256 vm = _mm256_set1_ps(mean), vr = _mm256_set1_ps(rstd);
  __m256 sg = _mm256_setzero_ps(), sgx = _mm256_setzero_ps();
  int c = 0;
  for (; c + 8 <= C; c += 8) {
    const __m256 xh = _mm256_mul_ps(_mm256_sub_ps(_mm256_loadu_ps(x + c), vm), vr);
    const __m256 g = _mm256_mul_ps(_mm256_loadu_ps(dy + c), _mm256_loadu_ps(w + c));
    sg = _mm256_add_ps(sg, g);
    sgx = _mm256_fmadd_ps(g, xh, sgx);
  }
  float g_mean = hsum8(sg), gx_mean = hsum8(sgx);
  for (; c < C; ++c) {
    const float xh = (x[c] - mean) * rstd, g = dy[c] * w[c];
    g_mean += g;
    gx_mean += g * xh;
  }
  g_mean /= C;
  gx_mean /= C;
  const __m256 vgm = _mm256_set1_ps(g_mean), vgx = _mm256_set1_ps(gx_mean);
  for (c = 0; c + 8 <= C; c += 8) {
    const __m256 xh = _mm256_mul_ps(_mm256_sub_ps(_mm256_loadu_ps(x + c), vm), vr);
    const __m256 g = _mm256_mul_ps(_mm256_loadu_ps(dy + c), _mm256_loadu_ps(w + c));
    const __m256 t = _mm256_fnmadd_ps(xh, vgx, _mm256_sub_ps(g, vgm));
    _mm256_storeu_ps(dx + c, _mm256_fmadd_ps(vr, t, _mm256_loadu_ps(dx + c)));
  }
  for (; c < C; ++c) {
    const float xh = (x[c] - mean) * rstd, g = dy[c] * w[c];
    dx[c] += rstd * (g - g_mean - xh * gx_mean);
  }
}

SG_TARGET_END

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
  const auto row = pick(ex.isa, layernorm_row_avx2, layernorm_row_avx2, layernorm_row_scalar);
  detail::for_rows(ex.workers(), N, C, [&](int64_t r0, int64_t r1) {
    for (int64_t n = r0; n < r1; ++n)
      row(out + n * C, mean + n, rstd + n, inp + n * C, weight, bias, C, eps);
  });
}

void layernorm_backward(const ExecContext& ex, float* dinp, float* dweight, float* dbias,
                        const float* dout, const float* inp, const float* weight, const float* mean,
                        const float* rstd, int N, int C) {
  const auto row =
      pick(ex.isa, layernorm_back_row_avx2, layernorm_back_row_avx2, layernorm_back_row_scalar);
  // dinp: rows in parallel.
  detail::for_rows(ex.workers(), N, C, [&](int64_t r0, int64_t r1) {
    for (int64_t n = r0; n < r1; ++n)
      row(dinp + n * C, dout + n * C, inp + n * C, weight, mean[n], rstd[n], C);
  });
  // dweight, dbias: column ranges in parallel, rows in order (the reference's order).
  constexpr int kCols = 64;
  const int64_t ranges = (C + kCols - 1) / kCols;
  auto columns = [&](int64_t begin, int64_t end) {
    const int c0 = static_cast<int>(begin) * kCols;
    const int c1 = end * kCols < C ? static_cast<int>(end) * kCols : C;
    for (int n = 0; n < N; ++n) {
      const float* x = inp + static_cast<int64_t>(n) * C;
      const float* dy = dout + static_cast<int64_t>(n) * C;
      const float m = mean[n], s = rstd[n];
      for (int c = c0; c < c1; ++c) {
        const float xhat = (x[c] - m) * s;
        dbias[c] += dy[c];
        dweight[c] += dy[c] * xhat;
      }
    }
  };
  if (static_cast<int64_t>(N) * C < 2 * detail::kChunk || ranges == 1)
    columns(0, ranges);
  else
    ex.workers().parallel_for(ranges, [&](int64_t b, int64_t e, int) { columns(b, e); });
}

}  // namespace scratchgpt::cpu
