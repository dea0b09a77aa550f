// matvec_q8_impl.h: the Q8 dot product of matvec_q8_simd.h on 256-bit integer vectors, included by
// each per-ISA unit (matvec_q8_avx2.cpp; matvec_q8_avx512.cpp, compiled with AVX512_VNNI).
// Per block of 32: |w| (unsigned) times x * sign(w) (signed) = w * x, summed to int32 by vpdpbusd
// (VNNI) or vpmaddubsw + vpmaddwd (AVX2; |w|, |x| <= 127 so the 16-bit pair sums never saturate),
// so no +128 offset and no weight-sum correction are needed. Eight blocks' sums are reduced to one
// vector (exact), converted, and fused-multiply-added with dw * dx into 8 float lanes: the order of
// ref::dot_q8, so every ISA gives its bits. The weights are prefetched 2 KiB ahead (a thread reads
// its rows as one sequential stream; single-thread lm_head 5.0 -> 6.0-6.4 GB/s on Cascade Lake).

// The 8 int32 partial sums of w . x for one block of 32 int8 (VNNI: one vpdpbusd).
template <bool kVnni>
inline __m256i block_dot(__m256i w, __m256i x) {
  const __m256i aw = _mm256_sign_epi8(w, w);  // |w|: quantisation never gives -128
  const __m256i sx = _mm256_sign_epi8(x, w);  // x * sign(w)
  if constexpr (kVnni) {
#if SG_ISA_AVX512
    return _mm256_dpbusd_epi32(_mm256_setzero_si256(), aw, sx);
#endif
  }
  return _mm256_madd_epi16(_mm256_maddubs_epi16(aw, sx), _mm256_set1_epi16(1));
}

// v[j] holds block j's 8 partial sums -> lane j = block j's sum (integer adds: exact).
inline __m256i block_sums8(const __m256i* v) {
  const __m256i a = _mm256_hadd_epi32(_mm256_hadd_epi32(v[0], v[1]), _mm256_hadd_epi32(v[2], v[3]));
  const __m256i b = _mm256_hadd_epi32(_mm256_hadd_epi32(v[4], v[5]), _mm256_hadd_epi32(v[6], v[7]));
  // a = [s0 s1 s2 s3 | t0 t1 t2 t3] (low and high halves of blocks 0-3), b likewise for 4-7.
  return _mm256_add_epi32(_mm256_permute2x128_si256(a, b, 0x20),
                          _mm256_permute2x128_si256(a, b, 0x31));
}

// ref::dot_q8 of rows qw/dw and qx/dx of nb blocks.
template <bool kVnni>
inline float dot_q8_row(const int8_t* qw, const float* dw, const int8_t* qx, const float* dx,
                        int nb) {
  __m256 acc = _mm256_setzero_ps();
  for (int b = 0; b < nb; b += 8) {
    const int m = nb - b < 8 ? nb - b : 8;
    for (int l = 0; l < 4; ++l)  // 2 KiB ahead: the rows that follow stream in meanwhile
      _mm_prefetch(reinterpret_cast<const char*>(qw + int64_t{b} * 32 + 2048 + 64 * l),
                   _MM_HINT_T0);
    __m256i v[8];
    float d[8] = {};  // lanes past the last block: sum 0 times scale 0 leaves acc as it is
    for (int j = 0; j < 8; ++j) {
      if (j < m) {
        const int64_t k = int64_t{b + j} * 32;
        v[j] = block_dot<kVnni>(_mm256_loadu_si256(reinterpret_cast<const __m256i*>(qw + k)),
                                _mm256_loadu_si256(reinterpret_cast<const __m256i*>(qx + k)));
        d[j] = dw[b + j] * dx[b + j];
      } else {
        v[j] = _mm256_setzero_si256();
      }
    }
    acc = _mm256_fmadd_ps(_mm256_cvtepi32_ps(block_sums8(v)), _mm256_loadu_ps(d), acc);
  }
  const __m128 s4 = _mm_add_ps(_mm256_castps256_ps128(acc), _mm256_extractf128_ps(acc, 1));
  const __m128 s2 = _mm_add_ps(s4, _mm_movehl_ps(s4, s4));  // [s0 + s2, s1 + s3, ..]
  return _mm_cvtss_f32(_mm_add_ss(s2, _mm_shuffle_ps(s2, s2, 1)));
}

// Output rows [o_begin, o_end) for N quantised inputs (qx (N, nb*32), dx (N, nb)).
template <bool kVnni>
inline void matvec_q8_rows(float* out, const int8_t* qx, const float* dx, const int8_t* qw,
                           const float* dw, const float* bias, int N, int nb, int OC, int o_begin,
                           int o_end) {
  for (int o = o_begin; o < o_end; ++o)
    for (int n = 0; n < N; ++n) {
      const float s = dot_q8_row<kVnni>(qw + int64_t{o} * nb * 32, dw + int64_t{o} * nb,
                                        qx + int64_t{n} * nb * 32, dx + int64_t{n} * nb, nb);
      out[int64_t{n} * OC + o] = bias ? s + bias[o] : s;
    }
}
