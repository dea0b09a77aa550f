// gemm_bf16_impl.h: the GEMM of --dtype bf16 (gemm.h's gemm_bf16), written once over a type P of
// pair operations and included by gemm_bf16_avx2.cpp, gemm_bf16_avx512.cpp (generated) and
// gemm_bf16_scalar.cpp inside an anonymous namespace. A and B are fp32, read through strides and
// rounded to bf16 (nearest even) as they are packed, two consecutive k to a 32-bit word (k even
// in the low half); the micro-kernel multiplies the pairs and sums them into fp32 accumulators,
// what AVX512_BF16's vdpbf16ps does in one instruction.
// The order of the sums is fixed by the definition, not by the blocking: for each C element
//   s = init ? 0 : C;  for each pair p (k = 2p, 2p + 1; a missing k + 1 is 0):
//     s += A(i, 2p + 1) B(2p + 1, j);  s += A(i, 2p) B(2p, j)     (odd first, as vdpbf16ps)
//   C = init && bias ? bias[j] + s : s
// Each product of two bf16 values is exact in fp32, so each step rounds once, fused or not: the
// scalar twin (ref::gemm_bf16 in kernels/ref/bf16.h) gives the same bits, at any K slice, tile
// or thread count. (Left out: vdpbf16ps flushes denormal inputs and results to zero; the twin
// and the emulated paths do not. Values that small do not occur in training.)
// P provides: T, kW (lanes), zero(), load(const float*), store(float*, T), words(const uint32_t*)
// (kW pair words), bcast_word(const uint32_t*) (one word in every lane), dot(acc, a, b) (per lane
// acc + a.odd b.odd + a.even b.even, in that order).
// Loop structure: for each NC-column block and KC-deep slice, the block's B panels are packed in
// parallel (or read from a B packed ahead, pack_b_whole: a weight between two AdamW steps), then
// the MR-row strips of C split among the threads, each packing its strip of A.
// Not standalone: needs GemmArgs, ThreadPool, thread_buffer and ref::bf16_from_float first.

// The word of a pair: bf16(even) in the low half, bf16(odd) in the high half.
inline uint32_t bf16_pair(float even, float odd) {
  return uint32_t{ref::bf16_from_float(even)} | uint32_t{ref::bf16_from_float(odd)} << 16;
}

#ifdef SG_ISA_AVX512  // the generated AVX2 and AVX-512 units (both have AVX2): 8 floats at a time
#if SG_ISA_AVX512
// The vdpbf16ps unit (AVX512_BF16 in its target): vcvtneps2bf16 rounds eight floats to bf16 in one
// instruction, to nearest even as ref::bf16_from_float, a NaN to a quiet NaN with the same top
// bits as it; only a denormal differs (it becomes a zero of its sign), and vdpbf16ps reads a
// denormal input as that zero anyway, so every sum keeps its bits.

// The four pair words of x[0..7]: (x[0], x[1]), (x[2], x[3]), ... in the 32-bit lanes of an xmm
// (eight bf16 in order are four pair words).
inline __m128i pair_words_4(const float* x) {
  return __builtin_bit_cast(__m128i, _mm256_cvtneps_pbh(_mm256_loadu_ps(x)));
}

// vdpbf16ps: sixteen fp32 lanes; a and b hold 32 bf16 values, a pair to a lane.
struct PairsAvx512Bf16 {
  using T = __m512;
  static constexpr int kW = 16;
  static T zero() { return _mm512_setzero_ps(); }
  static T load(const float* p) { return _mm512_loadu_ps(p); }
  static void store(float* p, T x) { _mm512_storeu_ps(p, x); }
  static T add(T a, T b) { return _mm512_add_ps(a, b); }
  static T words(const uint32_t* p) { return _mm512_loadu_ps(reinterpret_cast<const float*>(p)); }
  static T bcast_word(const uint32_t* p) {
    return _mm512_castsi512_ps(_mm512_set1_epi32(static_cast<int>(*p)));
  }
  static T dot(T acc, T a, T b) {
    return _mm512_dpbf16_ps(acc, __builtin_bit_cast(__m512bh, a), __builtin_bit_cast(__m512bh, b));
  }
};

// words[i] = the pair (even[i], odd[i]) for the lanes i of `m` (up to 16): vcvtne2ps2bf16 rounds
// both rows at once (even in bf16 lanes 0-15, odd in 16-31), vpermw interleaves them.
inline void pair_words_16(uint32_t* words, const float* even, const float* odd, __mmask16 m) {
  alignas(64) static constexpr uint16_t kInterleave[32] = {
      0, 16, 1, 17, 2,  18, 3,  19, 4,  20, 5,  21, 6,  22, 7,  23,
      8, 24, 9, 25, 10, 26, 11, 27, 12, 28, 13, 29, 14, 30, 15, 31};
  const __m512bh both =
      _mm512_cvtne2ps_pbh(_mm512_maskz_loadu_ps(m, odd), _mm512_maskz_loadu_ps(m, even));
  _mm512_mask_storeu_epi32(
      words, m,
      _mm512_permutexvar_epi16(_mm512_load_si512(kInterleave), __builtin_bit_cast(__m512i, both)));
}
#else
#include "kernels/cpu/simd/round_bf16_impl.h"

// The eight pair words (even[i], odd[i]) of eight floats each.
inline __m256i pair_words_8(__m256 even, __m256 odd) {
  return _mm256_or_si256(_mm256_srli_epi32(round_bf16_8(even), 16),
                         _mm256_castps_si256(round_bf16_ps8(odd)));
}

// The four pair words of x[0..7]: (x[0], x[1]), (x[2], x[3]), ... in the 32-bit lanes of an xmm.
inline __m128i pair_words_4(const float* x) {
  // Bytes 2-3 (the even value's bf16) and 6-7 (the odd one's) of each 8-byte pair: two words at
  // the bottom of each 128-bit half, then the halves' bottoms side by side.
  const __m256i top_halves =
      _mm256_setr_epi8(2, 3, 6, 7, 10, 11, 14, 15, -1, -1, -1, -1, -1, -1, -1, -1, 2, 3, 6, 7, 10,
                       11, 14, 15, -1, -1, -1, -1, -1, -1, -1, -1);
  const __m256i w = _mm256_shuffle_epi8(round_bf16_8(_mm256_loadu_ps(x)), top_halves);
  return _mm256_castsi256_si128(_mm256_permute4x64_epi64(w, 0x08));
}
#endif
#endif

// words[i] = the pair (even[i], odd[i]) for i < n: two rows of k side by side.
inline void pair_rows(uint32_t* __restrict words, const float* even, const float* odd, int n) {
  int i = 0;
#if SG_ISA_AVX512
  for (; i + 16 <= n; i += 16) pair_words_16(words + i, even + i, odd + i, 0xffff);
  if (i < n) {  // the rest (a 12-row strip, an edge): masked lanes
    pair_words_16(words + i, even + i, odd + i, static_cast<__mmask16>((1u << (n - i)) - 1));
    i = n;
  }
#elif defined(SG_ISA_AVX512)
  for (; i + 8 <= n; i += 8)
    _mm256_storeu_si256(reinterpret_cast<__m256i*>(words + i),
                        pair_words_8(_mm256_loadu_ps(even + i), _mm256_loadu_ps(odd + i)));
  if (i + 4 <= n) {  // four more (the AVX2 path's 4-row strips): the low halves
    const __m256i w = pair_words_8(_mm256_set_m128(_mm_setzero_ps(), _mm_loadu_ps(even + i)),
                                   _mm256_set_m128(_mm_setzero_ps(), _mm_loadu_ps(odd + i)));
    _mm_storeu_si128(reinterpret_cast<__m128i*>(words + i), _mm256_castsi256_si128(w));
    i += 4;
  }
#endif
  for (; i < n; ++i) words[i] = bf16_pair(even[i], odd[i]);
}

// words[q * stride] = the pair (x[2q], x[2q + 1]) for q < n: the k of one row, in pairs.
inline void pair_along(uint32_t* __restrict words, int64_t stride, const float* x, int n) {
  int q = 0;
#ifdef SG_ISA_AVX512
  for (; q + 4 <= n; q += 4) {
    const __m128i w = pair_words_4(x + 2 * q);
    words[(q + 0) * stride] = static_cast<uint32_t>(_mm_extract_epi32(w, 0));
    words[(q + 1) * stride] = static_cast<uint32_t>(_mm_extract_epi32(w, 1));
    words[(q + 2) * stride] = static_cast<uint32_t>(_mm_extract_epi32(w, 2));
    words[(q + 3) * stride] = static_cast<uint32_t>(_mm_extract_epi32(w, 3));
  }
#endif
  for (; q < n; ++q) words[q * stride] = bf16_pair(x[2 * q], x[2 * q + 1]);
}

// words[q] = the pair (x[2q], x[2q + 1]) for q < n: pair_along with consecutive words.
inline void pair_words_row(uint32_t* __restrict words, const float* x, int n) {
  int q = 0;
#if SG_ISA_AVX512
  for (; q + 8 <= n; q += 8)
    _mm256_storeu_si256(
        reinterpret_cast<__m256i*>(words + q),
        __builtin_bit_cast(__m256i, _mm512_cvtneps_pbh(_mm512_loadu_ps(x + 2 * q))));
  if (q < n) {  // the rest: masked lanes, nothing read past x[2n - 1]
    const __m256i w = __builtin_bit_cast(
        __m256i, _mm512_cvtneps_pbh(_mm512_maskz_loadu_ps(
                     static_cast<__mmask16>((1u << (2 * (n - q))) - 1), x + 2 * q)));
    _mm256_mask_storeu_epi32(words + q, static_cast<__mmask8>((1u << (n - q)) - 1), w);
    q = n;
  }
#elif defined(SG_ISA_AVX512)
  for (; q + 4 <= n; q += 4)
    _mm_storeu_si128(reinterpret_cast<__m128i*>(words + q), pair_words_4(x + 2 * q));
#endif
  for (; q < n; ++q) words[q] = bf16_pair(x[2 * q], x[2 * q + 1]);
}

// out[i] = bf16(x[i]) for i < n: pair_words_row over the whole pairs (two bf16 in order are a
// pair word), the odd last one alone.
inline void round_row(uint16_t* __restrict out, const float* x, int64_t n) {
  constexpr int64_t kChunk = int64_t{1} << 20;  // pairs a call (pair_words_row counts in int)
  auto* words = reinterpret_cast<uint32_t*>(out);
  for (int64_t q = 0; q < n / 2; q += kChunk)
    pair_words_row(words + q, x + 2 * q, static_cast<int>(n / 2 - q < kChunk ? n / 2 - q : kChunk));
  if (n % 2) out[n - 1] = ref::bf16_from_float(x[n - 1]);
}

// out[c * ld_out + r] = bf16(x[r * ld + c]) for r < rows, c < cols: a block of x (rows, cols)
// rounded into its transpose. Eight rows of eight at a time: each row's eight bf16 in an xmm,
// the 8 x 8 block of 16-bit values transposed in registers.
inline void round_transposed(uint16_t* __restrict out, int64_t ld_out, const float* x, int64_t ld,
                             int rows, int cols) {
  int r = 0;
#ifdef SG_ISA_AVX512
  for (; r + 8 <= rows; r += 8) {
    int c = 0;
    for (; c + 8 <= cols; c += 8) {
      __m128i w[8];
      for (int i = 0; i < 8; ++i) w[i] = pair_words_4(x + (r + i) * ld + c);  // row r + i
      __m128i a[8], b[8];
      for (int i = 0; i < 4; ++i) {  // rows 2i, 2i + 1 interleaved: columns 0-3, then 4-7
        a[2 * i] = _mm_unpacklo_epi16(w[2 * i], w[2 * i + 1]);
        a[2 * i + 1] = _mm_unpackhi_epi16(w[2 * i], w[2 * i + 1]);
      }
      for (int h = 0; h < 2; ++h)  // rows 0-3 (h = 0) and 4-7: two columns of four rows each
        for (int i = 0; i < 2; ++i) {
          b[4 * h + 2 * i] = _mm_unpacklo_epi32(a[4 * h + i], a[4 * h + i + 2]);
          b[4 * h + 2 * i + 1] = _mm_unpackhi_epi32(a[4 * h + i], a[4 * h + i + 2]);
        }
      for (int j = 0; j < 4; ++j) {  // columns 2j and 2j + 1, all eight rows
        _mm_storeu_si128(reinterpret_cast<__m128i*>(out + (c + 2 * j) * ld_out + r),
                         _mm_unpacklo_epi64(b[j], b[j + 4]));
        _mm_storeu_si128(reinterpret_cast<__m128i*>(out + (c + 2 * j + 1) * ld_out + r),
                         _mm_unpackhi_epi64(b[j], b[j + 4]));
      }
    }
    for (; c < cols; ++c)
      for (int i = 0; i < 8; ++i)
        out[c * ld_out + r + i] = ref::bf16_from_float(x[(r + i) * ld + c]);
  }
#endif
  for (; r < rows; ++r)
    for (int c = 0; c < cols; ++c) out[c * ld_out + r] = ref::bf16_from_float(x[r * ld + c]);
}

// pair_along for R rows of x at once (R a multiple of 4; row r at x + r * ld): words[q * stride
// + r] = the pair (x_r[2q], x_r[2q + 1]) for q < n, r < R. Four pairs of four rows make a 4 x 4
// block of words, transposed in registers and stored as four runs of four: no word-by-word
// scatter as R separate pair_along calls make.
template <int R>
inline void pair_along_rows(uint32_t* __restrict words, int64_t stride, const float* x,
                            int64_t ld, int n) {
  static_assert(R % 4 == 0, "whole groups of four rows");
  int q = 0;
#ifdef SG_ISA_AVX512
  for (; q + 4 <= n; q += 4)
    for (int r = 0; r < R; r += 4) {
      const __m128i w0 = pair_words_4(x + (r + 0) * ld + 2 * q);
      const __m128i w1 = pair_words_4(x + (r + 1) * ld + 2 * q);
      const __m128i w2 = pair_words_4(x + (r + 2) * ld + 2 * q);
      const __m128i w3 = pair_words_4(x + (r + 3) * ld + 2 * q);
      const __m128i lo01 = _mm_unpacklo_epi32(w0, w1), lo23 = _mm_unpacklo_epi32(w2, w3);
      const __m128i hi01 = _mm_unpackhi_epi32(w0, w1), hi23 = _mm_unpackhi_epi32(w2, w3);
      auto put = [&](int i, __m128i v) {  // pair q + i of rows r..r+3
        _mm_storeu_si128(reinterpret_cast<__m128i*>(words + (q + i) * stride + r), v);
      };
      put(0, _mm_unpacklo_epi64(lo01, lo23));
      put(1, _mm_unpackhi_epi64(lo01, lo23));
      put(2, _mm_unpacklo_epi64(hi01, hi23));
      put(3, _mm_unpackhi_epi64(hi01, hi23));
    }
#endif
  for (; q < n; ++q)
    for (int r = 0; r < R; ++r)
      words[q * stride + r] = bf16_pair(x[r * ld + 2 * q], x[r * ld + 2 * q + 1]);
}

// Ap[p * MR + r] = the pair (A(i0 + r, k0 + 2p), A(i0 + r, k0 + 2p + 1)) for p < kp; k past k_end
// and rows past mr are 0. Read along A's unit stride: a row at a time when A is row-major, else a
// k at a time (dweight's dout^T, whose k are rows of dout).
template <int MR>
inline void pack_a_pairs(uint32_t* __restrict Ap, const GemmArgs& g, int i0, int mr, int k0,
                         int k_end, int kp) {
  auto at = [&](int r, int k) {
    return r < mr && k < k_end ? g.A[int64_t{i0 + r} * g.rs_a + k * g.cs_a] : 0.0f;
  };
  const int inside = (k_end - k0) / 2;  // pairs with both k inside
  const int whole = inside < kp ? inside : kp;
  if (g.cs_a == 1) {
    if (mr == MR) {
      pair_along_rows<MR>(Ap, MR, g.A + int64_t{i0} * g.rs_a + k0, g.rs_a, whole);
      for (int r = 0; r < MR; ++r)
        for (int p = whole; p < kp; ++p)
          Ap[p * MR + r] = bf16_pair(at(r, k0 + 2 * p), at(r, k0 + 2 * p + 1));
      return;
    }
    for (int r = 0; r < MR; ++r) {
      if (r >= mr) {  // past the last row (a T = 64 head's last strip has 4 of 12): zeros
        for (int p = 0; p < kp; ++p) Ap[p * MR + r] = 0;
        continue;
      }
      if (whole) pair_along(Ap + r, MR, g.A + int64_t{i0 + r} * g.rs_a + k0, whole);
      for (int p = whole; p < kp; ++p)
        Ap[p * MR + r] = bf16_pair(at(r, k0 + 2 * p), at(r, k0 + 2 * p + 1));
    }
  } else {
    for (int p = 0; p < kp; ++p) {
      const int k = k0 + 2 * p;
      if (g.rs_a == 1 && p < whole) {
        pair_rows(Ap + p * MR, g.A + i0 + k * g.cs_a, g.A + i0 + (k + 1) * g.cs_a, mr);
        for (int r = mr; r < MR; ++r) Ap[p * MR + r] = 0;
        continue;
      }
      for (int r = 0; r < MR; ++r) Ap[p * MR + r] = bf16_pair(at(r, k), at(r, k + 1));
    }
  }
}

// Bp[p * NR + j] = the pair (B(k0 + 2p, j0 + j), B(k0 + 2p + 1, j0 + j)) for p < kp; k past k_end
// and columns past nr are 0. Read along B's unit stride: a k at a time when B is row-major (dinp's
// and dweight's B), else a column at a time (the forward's W^T, whose columns are rows of W).
template <int NR>
inline void pack_b_pairs(uint32_t* __restrict Bp, const GemmArgs& g, int k0, int k_end, int kp,
                         int j0, int nr) {
  auto at = [&](int k, int j) {
    return j < nr && k < k_end ? g.B[k * g.rs_b + int64_t{j0 + j} * g.cs_b] : 0.0f;
  };
  const int inside = (k_end - k0) / 2;  // pairs with both k inside
  const int whole = inside < kp ? inside : kp;
  if (g.cs_b == 1) {
    for (int p = 0; p < kp; ++p) {
      const int k = k0 + 2 * p;
      if (p < whole) {
        pair_rows(Bp + p * NR, g.B + k * g.rs_b + j0, g.B + (k + 1) * g.rs_b + j0, nr);
        for (int j = nr; j < NR; ++j) Bp[p * NR + j] = 0;  // past the last column
        continue;
      }
      for (int j = 0; j < NR; ++j) Bp[p * NR + j] = bf16_pair(at(k, j), at(k + 1, j));
    }
  } else {
    if (nr == NR && g.rs_b == 1) {
      pair_along_rows<NR>(Bp, NR, g.B + k0 + int64_t{j0} * g.cs_b, g.cs_b, whole);
      for (int j = 0; j < NR; ++j)
        for (int p = whole; p < kp; ++p)
          Bp[p * NR + j] = bf16_pair(at(k0 + 2 * p, j), at(k0 + 2 * p + 1, j));
      return;
    }
    for (int j = 0; j < NR; ++j) {
      if (j >= nr) {  // past the last column: zeros
        for (int p = 0; p < kp; ++p) Bp[p * NR + j] = 0;
        continue;
      }
      const int done = g.rs_b == 1 ? whole : 0;
      if (done) pair_along(Bp + j, NR, g.B + k0 + int64_t{j0 + j} * g.cs_b, done);
      for (int p = done; p < kp; ++p)
        Bp[p * NR + j] = bf16_pair(at(k0 + 2 * p, j), at(k0 + 2 * p + 1, j));
    }
  }
}

// P in plain floats, W lanes: the portable unit's (W = 4) and cpu_bf16_test's stand-in for
// vdpbf16ps (W = 16). Lanes of fp32 sums (x) or of pair words (w): an operand of dot is words,
// the rest sums. Each pair: two products, each exact, added one at a time, odd first: the same
// bits as vdpbf16ps's steps.
template <int W>
struct PairsPlain {
  struct T {
    float x[W];
    uint32_t w[W];
  };
  static constexpr int kW = W;
  static T zero() { return T{}; }
  static T load(const float* p) {
    T r{};
    for (int i = 0; i < W; ++i) r.x[i] = p[i];
    return r;
  }
  static void store(float* p, const T& a) {
    for (int i = 0; i < W; ++i) p[i] = a.x[i];
  }
  static T add(const T& a, const T& b) {
    T r{};
    for (int i = 0; i < W; ++i) r.x[i] = a.x[i] + b.x[i];
    return r;
  }
  static T words(const uint32_t* p) {
    T r{};
    for (int i = 0; i < W; ++i) r.w[i] = p[i];
    return r;
  }
  static T bcast_word(const uint32_t* p) {
    T r{};
    for (int i = 0; i < W; ++i) r.w[i] = *p;
    return r;
  }
  static float odd(uint32_t w) { return ref::float_from_bf16(static_cast<uint16_t>(w >> 16)); }
  static float even(uint32_t w) { return ref::float_from_bf16(static_cast<uint16_t>(w & 0xffffu)); }
  static T dot(T acc, const T& a, const T& b) {
    for (int i = 0; i < W; ++i) {
      acc.x[i] += odd(a.w[i]) * odd(b.w[i]);
      acc.x[i] += even(a.w[i]) * even(b.w[i]);
    }
    return acc;
  }
};

// An MR x NR tile of C from kp pairs of a packed strip and panel. load_c: the sums start from C
// (a later K slice, or C += A B), else from 0. last: this slice ends the sums; with `bias` then
// C = bias + s. Writes only the valid mr x nr part of an edge tile.
template <class P, int MR, int NV>
inline void micro_kernel_bf16(int kp, const uint32_t* __restrict Ap, const uint32_t* __restrict Bp,
                              float* C, int64_t ldc, int mr, int nr, bool load_c,
                              const float* bias) {
  using T = typename P::T;
  constexpr int W = P::kW;
  constexpr int NR = NV * W;
  const bool full = mr == MR && nr == NR;
  alignas(64) float tile[MR * NR];
  T acc[MR][NV];
  if (load_c && !full) {
    for (int r = 0; r < MR; ++r)
      for (int j = 0; j < NR; ++j) tile[r * NR + j] = r < mr && j < nr ? C[r * ldc + j] : 0.0f;
  }
#pragma GCC unroll 16
  for (int r = 0; r < MR; ++r)
#pragma GCC unroll 4
    for (int v = 0; v < NV; ++v)
      acc[r][v] = !load_c ? P::zero()
                  : full  ? P::load(C + r * ldc + v * W)
                          : P::load(tile + r * NR + v * W);
  for (int p = 0; p < kp; ++p) {
    T b[NV];
#pragma GCC unroll 4
    for (int v = 0; v < NV; ++v) b[v] = P::words(Bp + p * NR + v * W);
#pragma GCC unroll 16
    for (int r = 0; r < MR; ++r) {
      const T a = P::bcast_word(Ap + p * MR + r);
#pragma GCC unroll 4
      for (int v = 0; v < NV; ++v) acc[r][v] = P::dot(acc[r][v], a, b[v]);
    }
  }
  if (full) {
#pragma GCC unroll 16
    for (int r = 0; r < MR; ++r)
#pragma GCC unroll 4
      for (int v = 0; v < NV; ++v)
        P::store(C + r * ldc + v * W, bias ? P::add(P::load(bias + v * W), acc[r][v]) : acc[r][v]);
    return;
  }
#pragma GCC unroll 16
  for (int r = 0; r < MR; ++r)
#pragma GCC unroll 4
    for (int v = 0; v < NV; ++v) P::store(tile + r * NR + v * W, acc[r][v]);
  for (int r = 0; r < mr; ++r)
    for (int j = 0; j < nr; ++j)
      C[r * ldc + j] = bias ? bias[j] + tile[r * NR + j] : tile[r * NR + j];
}

// A path's blocking: pair operations P, MR x (NV kW) tiles, KC the K slice (even: whole pairs),
// NC the column block.
template <class Pairs, int MR_, int NV_, int KC_, int NC_>
struct Blocking {
  using P = Pairs;
  static constexpr int MR = MR_, NV = NV_, NR = NV_ * Pairs::kW, KC = KC_, KP = KC_ / 2, NC = NC_;
  static_assert(KC % 2 == 0 && NC % NR == 0, "KC whole pairs, NC whole panels");
};

// The n_panels panels of B's K slice [pc, k_end) from column jc on into out, each kp x NR words
// (pack_b_pairs), split among the pool's threads.
template <int NR>
void pack_b_panels(uint32_t* out, const GemmArgs& g, int pc, int k_end, int kp, int jc,
                   int n_panels, ThreadPool& pool) {
  pool.parallel_for(n_panels, [&](int64_t b, int64_t e, int) {
    for (int64_t q = b; q < e; ++q) {
      const int j0 = jc + static_cast<int>(q) * NR;
      const int nr = g.N - j0 < NR ? g.N - j0 : NR;
      pack_b_pairs<NR>(out + q * kp * NR, g, pc, k_end, kp, j0, nr);
    }
  });
}

// B packed whole, ahead (gemm.h's gemm_bf16_pack_b): slice by slice of K (each KC deep), each
// slice's panels in order, panel q of the slice at pc the kp x NR words the blocked GEMM would
// pack into its buffer for it. The slice at pc starts at word (pc / 2) * (its panels x NR).
// Or only the words of B's rows [k0, k1) and columns [j0, j1) in that layout, the rest left as
// they are (k0 even, k1 even or K; j0 a multiple of NR, j1 one or N): whole pairs and panels.
template <class L>
void pack_b_part(const GemmArgs& g, uint32_t* out, int k0, int k1, int j0, int j1,
                 ThreadPool& pool) {
  const int n_panels = (g.N + L::NR - 1) / L::NR;
  const int q0 = j0 / L::NR, q1 = (j1 + L::NR - 1) / L::NR;
  for (int pc = k0 / L::KC * L::KC; pc < k1; pc += L::KC) {
    const int k_end = g.K - pc < L::KC ? g.K : pc + L::KC;
    const int kp = (k_end - pc + 1) / 2;
    const int p0 = (k0 > pc ? k0 - pc : 0) / 2;  // the slice's pairs [p0, p1) are in the part
    const int hi = k1 < k_end ? k1 : k_end;
    const int p1 = (hi - pc + 1) / 2;
    uint32_t* slice = out + int64_t{pc / 2} * n_panels * L::NR;
    pool.parallel_for(q1 - q0, [&](int64_t b, int64_t e, int) {
      for (int64_t q = q0 + b; q < q0 + e; ++q) {
        const int jq = static_cast<int>(q) * L::NR;
        const int nr = g.N - jq < L::NR ? g.N - jq : L::NR;
        pack_b_pairs<L::NR>(slice + (q * kp + p0) * L::NR, g, pc + 2 * p0, hi, p1 - p0, jq, nr);
      }
    });
  }
}
template <class L>
void pack_b_whole(const GemmArgs& g, uint32_t* out, ThreadPool& pool) {
  pack_b_part<L>(g, out, 0, g.K, 0, g.N, pool);
}

// M, N, K > 0 (gemm.cpp writes an empty product itself). B is read from g.Bp when it is packed
// ahead, else packed here block by block.
template <class L>
void gemm_bf16_blocked(const GemmArgs& g, ThreadPool& pool) {
  constexpr int MR = L::MR, NR = L::NR, KC = L::KC, NC = L::NC;
  const int m_strips = (g.M + MR - 1) / MR;
  const int all_panels = (g.N + NR - 1) / NR;
  for (int jc = 0; jc < g.N; jc += NC) {
    const int nc = g.N - jc < NC ? g.N - jc : NC;
    const int n_panels = (nc + NR - 1) / NR;
    for (int pc = 0; pc < g.K; pc += KC) {
      const int k_end = g.K - pc < KC ? g.K : pc + KC;
      const int kp = (k_end - pc + 1) / 2;
      const bool load_c = pc > 0 || !g.init;
      const bool last = k_end == g.K;
      const uint32_t* Bp = nullptr;
      if (g.Bp) {
        Bp = g.Bp->words + int64_t{pc / 2} * all_panels * NR + int64_t{jc / NR} * kp * NR;
      } else {
        auto* packed =
            reinterpret_cast<uint32_t*>(thread_buffer(0, size_t{1} * n_panels * L::KP * NR));
        pack_b_panels<NR>(packed, g, pc, k_end, kp, jc, n_panels, pool);
        Bp = packed;
      }
      pool.parallel_for(m_strips, [&](int64_t b, int64_t e, int) {
        auto* Ap = reinterpret_cast<uint32_t*>(thread_buffer(1, size_t{1} * L::KP * MR));
        for (int64_t s = b; s < e; ++s) {
          const int i0 = static_cast<int>(s) * MR;
          const int mr = g.M - i0 < MR ? g.M - i0 : MR;
          // The pairs of this slice where the strip's A can be nonzero (a_tri): whole pairs
          // around them, the rest being products of zeros that change no sum.
          int p_lo = 0, p_hi = kp;
          if (g.a_tri == GemmArgs::kLower && i0 + mr < k_end)
            p_hi = i0 + mr <= pc ? 0 : (i0 + mr - pc + 1) / 2;
          if (g.a_tri == GemmArgs::kUpper && i0 > pc)
            p_lo = (i0 - pc) / 2 < kp ? (i0 - pc) / 2 : kp;
          const int np = p_hi > p_lo ? p_hi - p_lo : 0;
          pack_a_pairs<MR>(Ap, g, i0, mr, pc + 2 * p_lo, k_end, np);
          for (int q = 0; q < n_panels; ++q) {
            const int j0 = jc + q * NR;
            if (g.lower_c && j0 > i0 + mr - 1) break;  // this tile and the rest: above the diagonal
            const int nr = g.N - j0 < NR ? g.N - j0 : NR;
            const float* bias = last && g.init && g.bias ? g.bias + j0 : nullptr;
            micro_kernel_bf16<typename L::P, MR, L::NV>(np, Ap, Bp + (q * kp + p_lo) * NR,
                                                        g.C + i0 * g.ldc + j0, g.ldc, mr, nr,
                                                        load_c, bias);
          }
        }
      });
    }
  }
}

// The AVX-512 unit's two blockings (gemm_bf16_isa.inc), written over P so that cpu_bf16_test can
// run them with pair operations of its own (vdpbf16ps's sums in 16 plain lanes) on a CPU without
// AVX512_BF16. Both tiles hold 24 zmm accumulators, as the fp32 GEMM's two (gemm_isa.inc): 8 x 48
// and 12 x 32. A product takes the one whose panels pad N less, 8 x 48 on a tie, the fp32 GEMM's
// rule where it was measured (the small model's 128 columns: 4 panels of 32 against 3 of 48 with
// 16 wasted); by N alone, so that a B packed ahead (before M is known) has the product's layout.
template <class P>
using Avx512Wide = Blocking<P, 8, 3, 512, 768>;
template <class P>
using Avx512Tall = Blocking<P, 12, 2, 512, 768>;
inline bool avx512_tall(int N) { return (N + 31) / 32 * 32 < (N + 47) / 48 * 48; }
inline int avx512_nr(int N) { return avx512_tall(N) ? 32 : 48; }

template <class P>
void gemm_bf16_avx512_blocked(const GemmArgs& g, ThreadPool& pool) {
  if (avx512_tall(g.N))
    gemm_bf16_blocked<Avx512Tall<P>>(g, pool);
  else
    gemm_bf16_blocked<Avx512Wide<P>>(g, pool);
}
template <class P>
void pack_b_avx512(const GemmArgs& g, uint32_t* out, int k0, int k1, int j0, int j1,
                   ThreadPool& pool) {
  if (avx512_tall(g.N))
    pack_b_part<Avx512Tall<P>>(g, out, k0, k1, j0, j1, pool);
  else
    pack_b_part<Avx512Wide<P>>(g, out, k0, k1, j0, j1, pool);
}

#include "kernels/cpu/simd/attention_bf16_impl.h"
