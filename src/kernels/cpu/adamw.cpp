// adamw.cpp: cpu::adamw_update (see adamw.h). AdamW streams four arrays and is memory-bound; the
// AVX2 loop keeps it at the memory's speed instead of the scalar sqrt and divide's.
#include "kernels/cpu/adamw.h"

#include <immintrin.h>

#include <cmath>
#include <cstdint>

#include "kernels/cpu/parallel.h"
#include "kernels/cpu/simd/simd.h"
#include "kernels/ref/adamw.h"
#include "core/simd_target.h"

namespace scratchgpt::cpu {

namespace {

using AdamWScalars = ref::AdamWScalars<float>;

SG_TARGET_BEGIN("avx2")

// Elements [0, n - n % 8); returns how many it did. The tail goes through the reference.
int64_t adamw_avx2(float* param, const float* grad, float* m, float* v, int64_t n, float beta1,
                   float beta2, float eps, const AdamWScalars& s, float grad_scale) {
  const __m256 decay = _mm256_set1_ps(s.decay), b1 = _mm256_set1_ps(beta1),
               b2 = _mm256_set1_ps(beta2), omb1 = _mm256_set1_ps(s.one_minus_b1),
               omb2 = _mm256_set1_ps(s.one_minus_b2), neg_step = _mm256_set1_ps(-s.step_size),
               bc2_sqrt = _mm256_set1_ps(s.bc2_sqrt), veps = _mm256_set1_ps(eps),
               scale = _mm256_set1_ps(grad_scale);
  const bool scaled = grad_scale != 1.0f;
  int64_t i = 0;
  for (; i + 8 <= n; i += 8) {
    __m256 g = _mm256_loadu_ps(grad + i);
    if (scaled) g = _mm256_mul_ps(g, scale);
    const __m256 p = _mm256_mul_ps(_mm256_loadu_ps(param + i), decay);
    const __m256 mi =
        _mm256_add_ps(_mm256_mul_ps(_mm256_loadu_ps(m + i), b1), _mm256_mul_ps(omb1, g));
    const __m256 vi = _mm256_add_ps(_mm256_mul_ps(_mm256_loadu_ps(v + i), b2),
                                    _mm256_mul_ps(_mm256_mul_ps(omb2, g), g));
    const __m256 denom = _mm256_add_ps(_mm256_div_ps(_mm256_sqrt_ps(vi), bc2_sqrt), veps);
    _mm256_storeu_ps(m + i, mi);
    _mm256_storeu_ps(v + i, vi);
    _mm256_storeu_ps(param + i,
                     _mm256_add_ps(p, _mm256_div_ps(_mm256_mul_ps(neg_step, mi), denom)));
  }
  return i;
}

SG_TARGET_END

// The portable path has no vector part: the reference does every element.
int64_t adamw_none(float*, const float*, float*, float*, int64_t, float, float, float,
                   const AdamWScalars&, float) {
  return 0;
}

}  // namespace

void adamw_update(const ExecContext& ex, float* param, const float* grad, float* m, float* v,
                  int64_t n, float lr, float beta1, float beta2, float eps, float weight_decay,
                  int t, float grad_scale) {
  const auto vector_part = pick(ex.isa, adamw_avx2, adamw_avx2, adamw_none);
  const AdamWScalars s(lr, beta1, beta2, weight_decay, t);
  detail::for_chunks(ex.workers(), n, [&](int64_t b, int64_t e) {
    const int64_t done =
        vector_part(param + b, grad + b, m + b, v + b, e - b, beta1, beta2, eps, s, grad_scale);
    ref::adamw_update(param + b + done, grad + b + done, m + b + done, v + b + done, e - b - done,
                      lr, beta1, beta2, eps, weight_decay, t, grad_scale);
  });
}

}  // namespace scratchgpt::cpu
