// rows_avx2.h: sums, maxima, exp and scaling over one row of floats with AVX2 (8 at a time), the
// building blocks of the cpu:: row kernels (layernorm, softmax, crossentropy). Not standalone:
// include after <immintrin.h> and simd/vec_math_avx2.h, inside `SG_TARGET_BEGIN("avx2,fma")` and
// an anonymous namespace, so these bodies stay private to that file.
#pragma once

inline float row_sum(const float* x, int C) {
  __m256 s = _mm256_setzero_ps();
  int c = 0;
  for (; c + 8 <= C; c += 8) s = _mm256_add_ps(s, _mm256_loadu_ps(x + c));
  float r = hsum8(s);
  for (; c < C; ++c) r += x[c];
  return r;
}

inline float row_max(const float* x, int C) {
  __m256 m = _mm256_set1_ps(-std::numeric_limits<float>::infinity());
  int c = 0;
  for (; c + 8 <= C; c += 8) m = _mm256_max_ps(m, _mm256_loadu_ps(x + c));
  float r = hmax8(m);
  for (; c < C; ++c) r = x[c] > r ? x[c] : r;
  return r;
}

// y = exp(x - mx), returns sum(y).
inline float row_exp(float* y, const float* x, float mx, int C) {
  const __m256 vmx = _mm256_set1_ps(mx);
  __m256 s = _mm256_setzero_ps();
  int c = 0;
  for (; c + 8 <= C; c += 8) {
    const __m256 e = exp8(_mm256_sub_ps(_mm256_loadu_ps(x + c), vmx));
    _mm256_storeu_ps(y + c, e);
    s = _mm256_add_ps(s, e);
  }
  if (c < C) {
    const __m256i m = tail_mask8(C - c);
    const __m256 v = _mm256_maskload_ps(x + c, m);
    const __m256 e = _mm256_and_ps(exp8(_mm256_sub_ps(v, vmx)), _mm256_castsi256_ps(m));
    _mm256_maskstore_ps(y + c, m, e);
    s = _mm256_add_ps(s, e);
  }
  return hsum8(s);
}

inline void row_scale(float* y, float k, int C) {
  const __m256 vk = _mm256_set1_ps(k);
  int c = 0;
  for (; c + 8 <= C; c += 8) _mm256_storeu_ps(y + c, _mm256_mul_ps(_mm256_loadu_ps(y + c), vk));
  for (; c < C; ++c) y[c] *= k;
}
