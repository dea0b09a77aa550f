// gelu.cpp: cpu::gelu_* (see gelu.h). The AVX2 path runs the vector code on the tail too (through
// a padded copy), so every element gets the same arithmetic wherever the chunk edges fall.
#include "kernels/cpu/gelu.h"

#include <immintrin.h>

#include <cmath>
#include <cstdint>

#include "kernels/cpu/parallel.h"
#include "kernels/cpu/simd.h"
#include "kernels/ref/gelu.h"

namespace scratchgpt::cpu {

namespace {

#pragma GCC push_options
#pragma GCC target("avx2,fma")

#include "kernels/cpu/vec_math_avx2.h"

constexpr float kS = 0.7978845608028654f;  // sqrt(2 / pi)
constexpr float kA = 0.044715f;

inline __m256 gelu8(__m256 x) {
  const __m256 x3 = _mm256_mul_ps(_mm256_mul_ps(x, x), x);
  const __m256 u = _mm256_mul_ps(_mm256_set1_ps(kS), _mm256_fmadd_ps(_mm256_set1_ps(kA), x3, x));
  const __m256 th = tanh8(u);
  return _mm256_mul_ps(_mm256_mul_ps(_mm256_set1_ps(0.5f), x),
                       _mm256_add_ps(_mm256_set1_ps(1.0f), th));
}

inline __m256 gelu_grad8(__m256 x) {
  const __m256 x2 = _mm256_mul_ps(x, x);
  const __m256 u =
      _mm256_mul_ps(_mm256_set1_ps(kS), _mm256_fmadd_ps(_mm256_set1_ps(kA), _mm256_mul_ps(x2, x), x));
  const __m256 th = tanh8(u);
  const __m256 one = _mm256_set1_ps(1.0f), half = _mm256_set1_ps(0.5f);
  const __m256 sech2 = _mm256_fnmadd_ps(th, th, one);
  const __m256 poly = _mm256_fmadd_ps(_mm256_set1_ps(3.0f * kA), x2, one);
  // 0.5 (1 + th) + 0.5 x sech2 s (1 + 3a x^2)
  const __m256 right =
      _mm256_mul_ps(_mm256_mul_ps(_mm256_mul_ps(half, x), sech2), _mm256_mul_ps(_mm256_set1_ps(kS), poly));
  return _mm256_fmadd_ps(half, _mm256_add_ps(one, th), right);
}

void gelu_forward_avx2(float* out, const float* inp, int64_t n) {
  int64_t i = 0;
  for (; i + 8 <= n; i += 8) _mm256_storeu_ps(out + i, gelu8(_mm256_loadu_ps(inp + i)));
  if (i < n) {
    alignas(32) float buf[8] = {};
    for (int64_t j = i; j < n; ++j) buf[j - i] = inp[j];
    _mm256_store_ps(buf, gelu8(_mm256_load_ps(buf)));
    for (int64_t j = i; j < n; ++j) out[j] = buf[j - i];
  }
}

void gelu_backward_avx2(float* dinp, const float* inp, const float* dout, int64_t n) {
  int64_t i = 0;
  for (; i + 8 <= n; i += 8) {
    const __m256 g = gelu_grad8(_mm256_loadu_ps(inp + i));
    _mm256_storeu_ps(dinp + i, _mm256_fmadd_ps(_mm256_loadu_ps(dout + i), g, _mm256_loadu_ps(dinp + i)));
  }
  if (i < n) {
    alignas(32) float x[8] = {}, d[8] = {}, acc[8] = {};
    for (int64_t j = i; j < n; ++j) x[j - i] = inp[j], d[j - i] = dout[j], acc[j - i] = dinp[j];
    const __m256 g = gelu_grad8(_mm256_load_ps(x));
    _mm256_store_ps(acc, _mm256_fmadd_ps(_mm256_load_ps(d), g, _mm256_load_ps(acc)));
    for (int64_t j = i; j < n; ++j) dinp[j] = acc[j - i];
  }
}

#pragma GCC pop_options

}  // namespace

void gelu_forward(float* out, const float* inp, int64_t n) {
  const bool simd = simd_level() >= SimdLevel::kAvx2;
  detail::for_chunks(n, [&](int64_t b, int64_t e) {
    if (simd)
      gelu_forward_avx2(out + b, inp + b, e - b);
    else
      ref::gelu_forward(out + b, inp + b, e - b);
  });
}

void gelu_backward(float* dinp, const float* inp, const float* dout, int64_t n) {
  const bool simd = simd_level() >= SimdLevel::kAvx2;
  detail::for_chunks(n, [&](int64_t b, int64_t e) {
    if (simd)
      gelu_backward_avx2(dinp + b, inp + b, dout + b, e - b);
    else
      ref::gelu_backward(dinp + b, inp + b, dout + b, e - b);
  });
}

}  // namespace scratchgpt::cpu
