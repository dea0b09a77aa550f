// crossentropy.cpp: cpu::crossentropy_forward/backward (see crossentropy.h): softmax and the
// loss in log-sum-exp form per row, one thread per row. AVX2 code per row (AVX-512 machines run
// it too); the portable path calls the reference.
#include <immintrin.h>

#include <cmath>
#include <cstdint>
#include <limits>

#include "kernels/cpu/crossentropy.h"
#include "kernels/ref/crossentropy.h"
#include "core/simd_target.h"
#include "kernels/cpu/parallel.h"
#include "kernels/cpu/simd/simd.h"

namespace scratchgpt::cpu {

namespace {

SG_TARGET_BEGIN("avx2,fma")

#include "kernels/cpu/simd/vec_math_avx2.h"
#include "kernels/cpu/simd/rows_avx2.h"

// Row n: p = softmax(x), *loss = -log p[target].
void crossentropy_row_avx2(float* loss, float* p, const float* x, int target, int V) {
  const float mx = row_max(x, V);
  const float sum = row_exp(p, x, mx, V);
  row_scale(p, 1.0f / sum, V);
  *loss = std::log(sum) + mx - x[target];  // log-sum-exp form, as the reference
}

// d += k * (p - onehot(target))
void crossentropy_back_row_avx2(float* d, const float* p, int target, float k, int V) {
  const __m256 vk = _mm256_set1_ps(k);
  int v = 0;
  for (; v + 8 <= V; v += 8)
    _mm256_storeu_ps(d + v, _mm256_fmadd_ps(vk, _mm256_loadu_ps(p + v), _mm256_loadu_ps(d + v)));
  for (; v < V; ++v) d[v] += k * p[v];
  d[target] -= k;
}

SG_TARGET_END

// The portable rows: the reference on one row.
void crossentropy_row_scalar(float* loss, float* p, const float* x, int target, int V) {
  ref::crossentropy_forward(loss, p, x, &target, 1, V);
}

void crossentropy_back_row_scalar(float* d, const float* p, int target, float k, int V) {
  ref::crossentropy_backward(d, p, &target, &k, 1, V);
}

}  // namespace

void crossentropy_forward(const ExecContext& ex, float* losses, float* probs, const float* logits,
                          const int32_t* targets, int N, int V) {
  const auto row =
      pick(ex.isa, crossentropy_row_avx2, crossentropy_row_avx2, crossentropy_row_scalar);
  detail::for_rows(ex.workers(), N, V, [&](int64_t r0, int64_t r1) {
    for (int64_t n = r0; n < r1; ++n)
      row(losses + n, probs + n * V, logits + n * V, targets[n], V);
  });
}

void crossentropy_backward(const ExecContext& ex, float* dlogits, const float* probs,
                           const int32_t* targets, const float* dlosses, int N, int V) {
  const auto row = pick(ex.isa, crossentropy_back_row_avx2, crossentropy_back_row_avx2,
                        crossentropy_back_row_scalar);
  detail::for_rows(ex.workers(), N, V, [&](int64_t r0, int64_t r1) {
    for (int64_t n = r0; n < r1; ++n)
      row(dlogits + n * V, probs + n * V, targets[n], dlosses[n], V);
  });
}

}  // namespace scratchgpt::cpu
