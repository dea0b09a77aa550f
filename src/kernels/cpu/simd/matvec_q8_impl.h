// matvec_q8_impl.h: the Q8 products of matvec_q8_simd.h on panels of 16 weight rows, included by
// each per-ISA unit (matvec_q8_avx512.cpp, compiled with AVX512_VNNI; matvec_q8_avx2.cpp). A panel
// interleaves its rows by 4 bytes (quant_matvec.h), so one vector holds 4 weights of each of 16
// (zmm) or 8 (ymm) rows and is multiplied by 4 input bytes broadcast: each lane is one output row,
// and a block's integer sum is exact without any horizontal reduction.
//   AVX512_VNNI: vpdpbusd (unsigned x signed) takes the stored bytes w + 128 as the unsigned side
//     and the input q as the signed one; each block's sum starts at cx = -128 * (sum of q over the
//     block) (per input row, made with its quantisation), so it ends at exactly w . q.
//   AVX2: the sign trick, |w| (unsigned) times q * sign(w) (signed) by vpmaddubsw + vpmaddwd
//     (|w|, |q| <= 127: the 16-bit pair sums never saturate).
// Each block's sum is then converted and fused-multiply-added, times dw * dx, into its output's
// one accumulator, block after block: ref::dot_q8's order, so every ISA gives its bits. A tile is
// NT input rows against RV row vectors (two panels on AVX-512, a panel's two halves on AVX2): the
// weights loaded once serve NT inputs, each input byte broadcast serves RV vectors.

// Output rows [o0, o0 + 16 * RV) of out (N, OC) (RV panels from pw/pd; those below o0 + keep)
// for the NT input rows from n of qx/dx/cx ((N, nb*32) / (N, nb) / (N, nb)).
#if SG_ISA_AVX512
template <int NT, int RV>
inline void q8_tile(float* out, const int8_t* qx, const float* dx, const int32_t* cx, int n,
                    const uint8_t* pw, const float* pd, const float* bias, int nb, int OC,
                    int o0, int keep) {
  const int64_t row = int64_t{nb} * 32, ldo = OC;
  out += n * ldo, qx += n * row, dx += int64_t{n} * nb, cx += int64_t{n} * nb;
  const int64_t panel_bytes = int64_t{nb} * 512, panel_d = int64_t{nb} * 16;
  __mmask16 mask[RV];
  __m512 acc[RV][NT];
  for (int r = 0; r < RV; ++r) {
    const int k = keep - 16 * r;  // outputs of this vector below OC
    mask[r] = static_cast<__mmask16>(k >= 16 ? 0xffff : (1u << k) - 1);
    for (int t = 0; t < NT; ++t) acc[r][t] = _mm512_setzero_ps();
  }
  for (int b = 0; b < nb; ++b) {
    const uint8_t* w = pw + int64_t{b} * 512;  // panel r's block b at w + r * panel_bytes
    if (NT == 1)  // decoding: 2 KiB ahead, as a thread reads its panels as streams
      for (int r = 0; r < RV; ++r)
        for (int i = 0; i < 8; ++i)
          _mm_prefetch(reinterpret_cast<const char*>(w + r * panel_bytes + 2048 + 64 * i),
                       _MM_HINT_T0);
    // Two chains per output (even and odd 4-byte steps) halve the dependent vpdpbusd latency.
    __m512i s0[RV][NT], s1[RV][NT];
    for (int t = 0; t < NT; ++t) {
      const __m512i start = _mm512_set1_epi32(cx[t * nb + b]);
      for (int r = 0; r < RV; ++r) s0[r][t] = start, s1[r][t] = _mm512_setzero_si512();
    }
    for (int j = 0; j < 8; j += 2) {
      __m512i w0[RV], w1[RV];
      for (int r = 0; r < RV; ++r) {
        w0[r] = _mm512_loadu_si512(w + r * panel_bytes + j * 64);
        w1[r] = _mm512_loadu_si512(w + r * panel_bytes + j * 64 + 64);
      }
      for (int t = 0; t < NT; ++t) {
        int32_t x0, x1;
        __builtin_memcpy(&x0, qx + t * row + b * 32 + j * 4, 4);
        __builtin_memcpy(&x1, qx + t * row + b * 32 + j * 4 + 4, 4);
        const __m512i bx0 = _mm512_set1_epi32(x0), bx1 = _mm512_set1_epi32(x1);
        for (int r = 0; r < RV; ++r) {
          s0[r][t] = _mm512_dpbusd_epi32(s0[r][t], w0[r], bx0);
          s1[r][t] = _mm512_dpbusd_epi32(s1[r][t], w1[r], bx1);
        }
      }
    }
    for (int r = 0; r < RV; ++r) {
      const __m512 d = _mm512_loadu_ps(pd + r * panel_d + int64_t{b} * 16);
      for (int t = 0; t < NT; ++t) {
        const __m512 sum = _mm512_cvtepi32_ps(_mm512_add_epi32(s0[r][t], s1[r][t]));
        acc[r][t] = _mm512_fmadd_ps(sum, _mm512_mul_ps(d, _mm512_set1_ps(dx[t * nb + b])), acc[r][t]);
      }
    }
  }
  for (int r = 0; r < RV; ++r) {
    const __m512 bv =
        bias ? _mm512_maskz_loadu_ps(mask[r], bias + o0 + 16 * r) : _mm512_setzero_ps();
    for (int t = 0; t < NT; ++t)
      _mm512_mask_storeu_ps(out + t * ldo + o0 + 16 * r, mask[r],
                            bias ? _mm512_add_ps(acc[r][t], bv) : acc[r][t]);
  }
}
inline constexpr int kQ8MaxRV = 2;  // panels per tile
inline constexpr int kQ8MaxNT = 4;  // input rows per tile
#else
template <int NT, int RV>  // RV == 1: one panel, as its two halves of 8 rows
inline void q8_tile(float* out, const int8_t* qx, const float* dx, const int32_t*, int n,
                    const uint8_t* pw, const float* pd, const float* bias, int nb, int OC,
                    int o0, int keep) {
  static_assert(RV == 1, "AVX2 tiles are one panel");
  const int64_t row = int64_t{nb} * 32, ldo = OC;
  out += n * ldo, qx += n * row, dx += int64_t{n} * nb;
  const __m256i lane = _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7);
  __m256i mask[2];
  __m256 acc[2][NT];
  for (int h = 0; h < 2; ++h) {
    mask[h] = _mm256_cmpgt_epi32(_mm256_set1_epi32(keep - 8 * h), lane);
    for (int t = 0; t < NT; ++t) acc[h][t] = _mm256_setzero_ps();
  }
  const __m256i flip = _mm256_set1_epi8(static_cast<char>(0x80)), ones = _mm256_set1_epi16(1);
  for (int b = 0; b < nb; ++b) {
    const uint8_t* w = pw + int64_t{b} * 512;  // half h at w + 32 h in each 64-byte step
    if (NT == 1)
      for (int i = 0; i < 8; ++i)
        _mm_prefetch(reinterpret_cast<const char*>(w + 2048 + 64 * i), _MM_HINT_T0);
    __m256i s[2][NT];
    for (int h = 0; h < 2; ++h)
      for (int t = 0; t < NT; ++t) s[h][t] = _mm256_setzero_si256();
    for (int j = 0; j < 8; ++j) {
      __m256i wj[2], aw[2];
      for (int h = 0; h < 2; ++h) {
        wj[h] = _mm256_xor_si256(
            _mm256_loadu_si256(reinterpret_cast<const __m256i*>(w + j * 64 + h * 32)), flip);
        aw[h] = _mm256_sign_epi8(wj[h], wj[h]);  // |w|: quantisation never gives -128
      }
      for (int t = 0; t < NT; ++t) {
        int32_t x4;
        __builtin_memcpy(&x4, qx + t * row + b * 32 + j * 4, 4);
        const __m256i bx = _mm256_set1_epi32(x4);
        for (int h = 0; h < 2; ++h) {
          const __m256i sx = _mm256_sign_epi8(bx, wj[h]);  // q * sign(w)
          s[h][t] = _mm256_add_epi32(s[h][t],
                                     _mm256_madd_epi16(_mm256_maddubs_epi16(aw[h], sx), ones));
        }
      }
    }
    for (int h = 0; h < 2; ++h) {
      const __m256 d = _mm256_loadu_ps(pd + int64_t{b} * 16 + h * 8);
      for (int t = 0; t < NT; ++t)
        acc[h][t] = _mm256_fmadd_ps(_mm256_cvtepi32_ps(s[h][t]),
                                    _mm256_mul_ps(d, _mm256_set1_ps(dx[t * nb + b])), acc[h][t]);
    }
  }
  for (int h = 0; h < 2; ++h) {
    const __m256 bv = bias ? _mm256_maskload_ps(bias + o0 + 8 * h, mask[h]) : _mm256_setzero_ps();
    for (int t = 0; t < NT; ++t)
      _mm256_maskstore_ps(out + t * ldo + o0 + 8 * h, mask[h],
                          bias ? _mm256_add_ps(acc[h][t], bv) : acc[h][t]);
  }
}
inline constexpr int kQ8MaxRV = 1;  // panels per tile
inline constexpr int kQ8MaxNT = 2;  // input rows per tile
#endif

// Every input row against the RV panels at pw/pd (output rows from o0, keep of them below OC):
// kQ8MaxNT rows at a time, then the rest.
template <int RV>
inline void q8_inputs(float* out, const int8_t* qx, const float* dx, const int32_t* cx,
                      const uint8_t* pw, const float* pd, const float* bias, int N, int nb, int OC,
                      int o0, int keep) {
  int n = 0;
  for (; n + kQ8MaxNT <= N; n += kQ8MaxNT)
    q8_tile<kQ8MaxNT, RV>(out, qx, dx, cx, n, pw, pd, bias, nb, OC, o0, keep);
  const int left = N - n;  // fewer than kQ8MaxNT
  if (left == 3) q8_tile<3, RV>(out, qx, dx, cx, n, pw, pd, bias, nb, OC, o0, keep);
  if (left == 2) q8_tile<2, RV>(out, qx, dx, cx, n, pw, pd, bias, nb, OC, o0, keep);
  if (left == 1) q8_tile<1, RV>(out, qx, dx, cx, n, pw, pd, bias, nb, OC, o0, keep);
}


// Panels [p_begin, p_end) of out (N, OC) for all N input rows: kQ8MaxRV panels at a time, each
// group against every input row while its bytes are in cache.
inline void matvec_q8_panels(float* out, const int8_t* qx, const float* dx, const int32_t* cx,
                             const uint8_t* pw, const float* pd, const float* bias, int N, int nb,
                             int OC, int p_begin, int p_end) {
  for (int p = p_begin; p < p_end;) {
    const uint8_t* w = pw + int64_t{p} * nb * 512;
    const float* d = pd + int64_t{p} * nb * 16;
    const int rv = kQ8MaxRV == 2 && p + 1 < p_end ? 2 : 1;
    if (rv == 2)
      q8_inputs<kQ8MaxRV>(out, qx, dx, cx, w, d, bias, N, nb, OC, p * 16, OC - p * 16);
    else
      q8_inputs<1>(out, qx, dx, cx, w, d, bias, N, nb, OC, p * 16, OC - p * 16);
    p += rv;
  }
}

// Input rows [n_begin, n_end) of x (N, C) quantised into qx/dx (N, nb*32) / (N, nb) with the bits
// of ref::quantize_q8 (each step is exact per value or, for the scale, the same IEEE operation:
// max|x|, / 127, 1 / d, x * (1 / d) rounded half to even by vcvtps2dq), and cx (N, nb) = -128 *
// each block's sum of q. A last partial block goes through ref::quantize_q8_block.
inline void quantize_q8_rows(const float* x, int C, int8_t* qx, float* dx, int32_t* cx,
                             int n_begin, int n_end) {
  const int nb = (C + 31) / 32, full = C / 32;
  for (int n = n_begin; n < n_end; ++n) {
    const float* xr = x + int64_t{n} * C;
    int8_t* q = qx + int64_t{n} * nb * 32;
    float* d = dx + int64_t{n} * nb;
    int32_t* c = cx + int64_t{n} * nb;
    for (int b = 0; b < full; ++b) {
#if SG_ISA_AVX512
      const __m512 v0 = _mm512_loadu_ps(xr + b * 32), v1 = _mm512_loadu_ps(xr + b * 32 + 16);
      d[b] = _mm512_reduce_max_ps(_mm512_max_ps(_mm512_abs_ps(v0), _mm512_abs_ps(v1))) / 127.0f;
      const __m512 id = _mm512_set1_ps(d[b] != 0.0f ? 1.0f / d[b] : 0.0f);
      const __m512i q0 = _mm512_cvtps_epi32(_mm512_mul_ps(v0, id));
      const __m512i q1 = _mm512_cvtps_epi32(_mm512_mul_ps(v1, id));
      _mm_storeu_si128(reinterpret_cast<__m128i*>(q + b * 32), _mm512_cvtepi32_epi8(q0));
      _mm_storeu_si128(reinterpret_cast<__m128i*>(q + b * 32 + 16), _mm512_cvtepi32_epi8(q1));
      c[b] = -128 * _mm512_reduce_add_epi32(_mm512_add_epi32(q0, q1));
#else
      const __m256 sign = _mm256_set1_ps(-0.0f);
      __m256 v[4], m = _mm256_setzero_ps();
      for (int i = 0; i < 4; ++i)
        v[i] = _mm256_loadu_ps(xr + b * 32 + 8 * i), m = _mm256_max_ps(m, _mm256_andnot_ps(sign, v[i]));
      const __m128 m4 = _mm_max_ps(_mm256_castps256_ps128(m), _mm256_extractf128_ps(m, 1));
      const __m128 m2 = _mm_max_ps(m4, _mm_movehl_ps(m4, m4));
      d[b] = _mm_cvtss_f32(_mm_max_ss(m2, _mm_shuffle_ps(m2, m2, 1))) / 127.0f;
      const __m256 id = _mm256_set1_ps(d[b] != 0.0f ? 1.0f / d[b] : 0.0f);
      __m256i qi[4];
      for (int i = 0; i < 4; ++i) qi[i] = _mm256_cvtps_epi32(_mm256_mul_ps(v[i], id));
      // Packs interleave the 128-bit lanes: the permute puts the 32 bytes back in order.
      const __m256i p = _mm256_packs_epi16(_mm256_packs_epi32(qi[0], qi[1]),
                                           _mm256_packs_epi32(qi[2], qi[3]));
      _mm256_storeu_si256(reinterpret_cast<__m256i*>(q + b * 32),
                          _mm256_permutevar8x32_epi32(p, _mm256_setr_epi32(0, 4, 1, 5, 2, 6, 3, 7)));
      const __m256i s8 = _mm256_add_epi32(_mm256_add_epi32(qi[0], qi[1]), _mm256_add_epi32(qi[2], qi[3]));
      const __m128i s4 = _mm_add_epi32(_mm256_castsi256_si128(s8), _mm256_extracti128_si256(s8, 1));
      const __m128i s2 = _mm_add_epi32(s4, _mm_shuffle_epi32(s4, 0x4e));
      c[b] = -128 * _mm_cvtsi128_si32(_mm_add_epi32(s2, _mm_shuffle_epi32(s2, 0xb1)));
#endif
    }
    if (full < nb) {
      ref::quantize_q8_block(xr + full * 32, C - full * 32, q + full * 32, d + full);
      int32_t sum = 0;
      for (int k = 0; k < 32; ++k) sum += q[full * 32 + k];
      c[full] = -128 * sum;
    }
  }
}
