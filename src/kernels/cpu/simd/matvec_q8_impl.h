// matvec_q8_impl.h: the Q8 products of matvec_q8_simd.h on a panel of 16 weight rows, included by
// each per-ISA unit (matvec_q8_avx512.cpp, compiled with AVX512_VNNI; matvec_q8_avx2.cpp). The
// panel interleaves its rows by 4 bytes (quant_matvec.h), so one vector holds 4 weights of each of
// 16 (zmm) or 8 (ymm) rows and is multiplied by 4 input bytes broadcast: each lane is one output
// row, and a block's integer sum is exact without any horizontal reduction.
//   AVX512_VNNI: vpdpbusd (unsigned x signed) takes the stored bytes w + 128 as the unsigned side
//     and the input q as the signed one; each block's sum starts at cx = -128 * (sum of q over the
//     block) (per input row, made with its quantisation), so it ends at exactly w . q.
//   AVX2: the sign trick, |w| (unsigned) times q * sign(w) (signed) by vpmaddubsw + vpmaddwd
//     (|w|, |q| <= 127: the 16-bit pair sums never saturate).
// Each block's sum is then converted, times dw * dx, fused-multiply-added into accumulator b % 8 of
// its output, and the 8 summed as ref::dot_q8 sums them: every ISA gives the reference's bits.

// The NT input rows qx/dx/cx ((NT, nb*32) / (NT, nb) / (NT, nb)) against the panel's rows
// [h * 8, h * 8 + 8) (AVX2) or all 16 (AVX-512): out (NT, ldo) at columns o0.. (keep: the
// columns below OC).
#if SG_ISA_AVX512
template <int NT>
inline void q8_tile(float* out, int64_t ldo, const int8_t* qx, const float* dx, const int32_t* cx,
                    const uint8_t* pw, const float* pd, const float* bias, int nb, int o0, int keep) {
  __m512 acc[NT][8];
  for (int t = 0; t < NT; ++t)
    for (int l = 0; l < 8; ++l) acc[t][l] = _mm512_setzero_ps();
  const int64_t row = int64_t{nb} * 32;
  for (int b0 = 0; b0 < nb; b0 += 8) {
#pragma GCC unroll 8
    for (int l = 0; l < 8; ++l) {  // unrolled, so that acc[t][l] is a register
      const int b = b0 + l;
      if (b == nb) break;
      const uint8_t* w = pw + int64_t{b} * 512;  // (8, 16, 4)
      if (NT == 1)  // decoding: 2 KiB ahead, as a thread reads its panels as one stream
        for (int i = 0; i < 8; ++i)
          _mm_prefetch(reinterpret_cast<const char*>(w + 2048 + 64 * i), _MM_HINT_T0);
      // Two chains per row (even and odd 4-byte steps) halve the dependent vpdpbusd latency.
      __m512i s0[NT], s1[NT];
      for (int t = 0; t < NT; ++t)
        s0[t] = _mm512_set1_epi32(cx[t * nb + b]), s1[t] = _mm512_setzero_si512();
      for (int j = 0; j < 8; j += 2) {
        const __m512i w0 = _mm512_loadu_si512(w + j * 64), w1 = _mm512_loadu_si512(w + j * 64 + 64);
        for (int t = 0; t < NT; ++t) {
          const int8_t* x = qx + t * row + b * 32 + j * 4;
          int32_t x0, x1;
          __builtin_memcpy(&x0, x, 4), __builtin_memcpy(&x1, x + 4, 4);
          s0[t] = _mm512_dpbusd_epi32(s0[t], w0, _mm512_set1_epi32(x0));
          s1[t] = _mm512_dpbusd_epi32(s1[t], w1, _mm512_set1_epi32(x1));
        }
      }
      const __m512 d = _mm512_loadu_ps(pd + int64_t{b} * 16);
      for (int t = 0; t < NT; ++t) {
        const __m512 sum = _mm512_cvtepi32_ps(_mm512_add_epi32(s0[t], s1[t]));
        const __m512 scale = _mm512_mul_ps(d, _mm512_set1_ps(dx[t * nb + b]));
        acc[t][l] = _mm512_fmadd_ps(sum, scale, acc[t][l]);
      }
    }
  }
  const __mmask16 mask = static_cast<__mmask16>(keep >= 16 ? 0xffff : (1u << keep) - 1);
  const __m512 bv = bias ? _mm512_maskz_loadu_ps(mask, bias + o0) : _mm512_setzero_ps();
  for (int t = 0; t < NT; ++t) {
    __m512 s4[4];  // ref::dot_q8's order: lanes i and i+4, then (0 + 2) + (1 + 3)
    for (int i = 0; i < 4; ++i) s4[i] = _mm512_add_ps(acc[t][i], acc[t][i + 4]);
    __m512 s = _mm512_add_ps(_mm512_add_ps(s4[0], s4[2]), _mm512_add_ps(s4[1], s4[3]));
    if (bias) s = _mm512_add_ps(s, bv);
    _mm512_mask_storeu_ps(out + t * ldo + o0, mask, s);
  }
}
inline constexpr int kQ8TileRows = 16;  // output rows per tile (one zmm)
#else
template <int NT>
inline void q8_tile(float* out, int64_t ldo, const int8_t* qx, const float* dx, const int32_t*,
                    const uint8_t* pw, const float* pd, const float* bias, int nb, int o0, int keep) {
  const int h = (o0 / 8) % 2;  // which half of the panel: its 32 bytes of each 64
  __m256 acc[NT][8];
  for (int t = 0; t < NT; ++t)
    for (int l = 0; l < 8; ++l) acc[t][l] = _mm256_setzero_ps();
  const int64_t row = int64_t{nb} * 32;
  const __m256i flip = _mm256_set1_epi8(static_cast<char>(0x80)), ones = _mm256_set1_epi16(1);
  for (int b0 = 0; b0 < nb; b0 += 8) {
#pragma GCC unroll 8
    for (int l = 0; l < 8; ++l) {
      const int b = b0 + l;
      if (b == nb) break;
      const uint8_t* w = pw + int64_t{b} * 512 + h * 32;
      __m256i s[NT];
      for (int t = 0; t < NT; ++t) s[t] = _mm256_setzero_si256();
      for (int j = 0; j < 8; ++j) {
        const __m256i wj = _mm256_xor_si256(
            _mm256_loadu_si256(reinterpret_cast<const __m256i*>(w + j * 64)), flip);  // w
        const __m256i aw = _mm256_sign_epi8(wj, wj);  // |w|: quantisation never gives -128
        for (int t = 0; t < NT; ++t) {
          int32_t x4;
          __builtin_memcpy(&x4, qx + t * row + b * 32 + j * 4, 4);
          const __m256i sx = _mm256_sign_epi8(_mm256_set1_epi32(x4), wj);  // q * sign(w)
          s[t] = _mm256_add_epi32(s[t], _mm256_madd_epi16(_mm256_maddubs_epi16(aw, sx), ones));
        }
      }
      const __m256 d = _mm256_loadu_ps(pd + int64_t{b} * 16 + h * 8);
      for (int t = 0; t < NT; ++t) {
        const __m256 scale = _mm256_mul_ps(d, _mm256_set1_ps(dx[t * nb + b]));
        acc[t][l] = _mm256_fmadd_ps(_mm256_cvtepi32_ps(s[t]), scale, acc[t][l]);
      }
    }
  }
  const __m256i lane = _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7);
  const __m256i mask = _mm256_cmpgt_epi32(_mm256_set1_epi32(keep), lane);
  const __m256 bv = bias ? _mm256_maskload_ps(bias + o0, mask) : _mm256_setzero_ps();
  for (int t = 0; t < NT; ++t) {
    __m256 s4[4];
    for (int i = 0; i < 4; ++i) s4[i] = _mm256_add_ps(acc[t][i], acc[t][i + 4]);
    __m256 s = _mm256_add_ps(_mm256_add_ps(s4[0], s4[2]), _mm256_add_ps(s4[1], s4[3]));
    if (bias) s = _mm256_add_ps(s, bv);
    _mm256_maskstore_ps(out + t * ldo + o0, mask, s);
  }
}
inline constexpr int kQ8TileRows = 8;  // output rows per tile (one ymm: half a panel)
#endif

// Panels [p_begin, p_end) of out (N, OC) for all N input rows: per tile of output rows, the
// inputs two at a time, then one (the panel's bytes stay in L1 meanwhile).
inline void matvec_q8_panels(float* out, const int8_t* qx, const float* dx, const int32_t* cx,
                             const uint8_t* pw, const float* pd, const float* bias, int N, int nb,
                             int OC, int p_begin, int p_end) {
  const int64_t row = int64_t{nb} * 32;
  for (int p = p_begin; p < p_end; ++p)
    for (int o0 = p * 16; o0 < p * 16 + 16 && o0 < OC; o0 += kQ8TileRows) {
      const uint8_t* w = pw + int64_t{p} * nb * 512;
      const float* d = pd + int64_t{p} * nb * 16;
      const int keep = OC - o0;
      int n = 0;
      for (; n + 2 <= N; n += 2)
        q8_tile<2>(out + n * int64_t{OC}, OC, qx + n * row, dx + int64_t{n} * nb,
                   cx + int64_t{n} * nb, w, d, bias, nb, o0, keep);
      if (n < N)
        q8_tile<1>(out + n * int64_t{OC}, OC, qx + n * row, dx + int64_t{n} * nb,
                   cx + int64_t{n} * nb, w, d, bias, nb, o0, keep);
    }
}
