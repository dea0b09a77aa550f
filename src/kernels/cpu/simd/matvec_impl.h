// matvec_impl.h: the matvec row kernel of matvec.h, written once over a vector type V and included
// by each per-ISA file (matvec_avx2.cpp, matvec_avx512.cpp) inside an anonymous namespace after its
// `SG_TARGET_BEGIN`, so each copy is compiled for its instruction set and stays private to it.
// V provides: T, kW (lanes), kRegs (vector registers; a row group uses up to half as accumulators),
// zero(), load(p),
// load_tail(p, rem) (rem < kW floats, the rest zero), fma(a, b, c) = a*b + c, add(a, b), hsum(a).
// Every dot product w . x has its own two accumulators: full kW-blocks alternate between them
// (block 0, 2, 4, ... into the first; 1, 3, 5, ... into the second; an odd last full block into
// the first), the zero-padded tail goes into the second, then hsum(first + second) + bias. That
// sequence depends only on C, not on how many rows are grouped together or on the thread that
// runs them, so any grouping and any thread count give the same bits.

// Weights as floats: fp32 as they are, bf16 (WT = uint16_t, the top halves of floats) widened
// exactly, so a bf16 matvec is the fp32 one on the widened weights, bit for bit.
template <class V>
inline typename V::T load_w(const float* p) {
  return V::load(p);
}
template <class V>
inline typename V::T load_w(const uint16_t* p) {
  return V::load_bf16(p);
}
template <class V>
inline typename V::T load_w_tail(const float* p, int rem) {
  return V::load_tail(p, rem);
}
template <class V>
inline typename V::T load_w_tail(const uint16_t* p, int rem) {
  uint16_t tmp[V::kW] = {};
  for (int i = 0; i < rem; ++i) tmp[i] = p[i];
  return V::load_bf16(tmp);
}

// Rows [o, o + R) of out for inputs [n0, n0 + NN): out[n][o + r] = x_n . w_{o+r} (+ bias), where
// weight row o sits at weight + o * ldw (WT: float, or uint16_t for bf16 weights).
template <class V, int R, int NN, class WT>
inline void matvec_group(float* out, const float* inp, const WT* weight, int64_t ldw,
                         const float* bias, int C, int OC, int o, int n0) {
  using T = typename V::T;
  constexpr int W = V::kW;
  const WT* w[R];
  const float* x[NN];
#pragma GCC unroll 8
  for (int r = 0; r < R; ++r) w[r] = weight + (o + r) * ldw;
#pragma GCC unroll 4
  for (int n = 0; n < NN; ++n) x[n] = inp + int64_t{n0 + n} * C;
  T acc0[R][NN], acc1[R][NN];
#pragma GCC unroll 8
  for (int r = 0; r < R; ++r)
#pragma GCC unroll 4
    for (int n = 0; n < NN; ++n) acc0[r][n] = acc1[r][n] = V::zero();
  const int full = C / W, rem = C % W;
  int b = 0;
  for (; b + 2 <= full; b += 2) {
    const int k = b * W;
    T xa[NN], xb[NN];
#pragma GCC unroll 4
    for (int n = 0; n < NN; ++n) {
      xa[n] = V::load(x[n] + k);
      xb[n] = V::load(x[n] + k + W);
    }
#pragma GCC unroll 8
    for (int r = 0; r < R; ++r) {
      if constexpr (sizeof(WT) == 2)  // bf16: the same line of the next group's rows, fetched now
        _mm_prefetch(reinterpret_cast<const char*>(w[r] + R * ldw + k), _MM_HINT_T0);
      const T wa = load_w<V>(w[r] + k), wb = load_w<V>(w[r] + k + W);
#pragma GCC unroll 4
      for (int n = 0; n < NN; ++n) {
        acc0[r][n] = V::fma(wa, xa[n], acc0[r][n]);
        acc1[r][n] = V::fma(wb, xb[n], acc1[r][n]);
      }
    }
  }
  if (b < full) {  // an odd last full block: the first accumulator
    const int k = b * W;
#pragma GCC unroll 8
    for (int r = 0; r < R; ++r) {
      const T wa = load_w<V>(w[r] + k);
#pragma GCC unroll 4
      for (int n = 0; n < NN; ++n) acc0[r][n] = V::fma(wa, V::load(x[n] + k), acc0[r][n]);
    }
  }
  if (rem) {  // the zero-padded tail: the second accumulator
    const int k = full * W;
#pragma GCC unroll 8
    for (int r = 0; r < R; ++r) {
      const T wt = load_w_tail<V>(w[r] + k, rem);
#pragma GCC unroll 4
      for (int n = 0; n < NN; ++n) acc1[r][n] = V::fma(wt, V::load_tail(x[n] + k, rem), acc1[r][n]);
    }
  }
#pragma GCC unroll 8
  for (int r = 0; r < R; ++r)
#pragma GCC unroll 4
    for (int n = 0; n < NN; ++n) {
      const float s = V::hsum(V::add(acc0[r][n], acc1[r][n]));
      out[int64_t{n0 + n} * OC + o + r] = bias ? s + bias[o + r] : s;
    }
}

// Rows [o_begin, o_end) for inputs [n0, n0 + NN): groups of as many rows as the accumulator
// registers allow, then single rows.
template <class V, int NN, class WT>
inline void matvec_inputs(float* out, const float* inp, const WT* weight, int64_t ldw,
                          const float* bias, int C, int OC, int o_begin, int o_end, int n0) {
  constexpr int kAcc = V::kRegs / 2;  // accumulators; the rest hold inputs and weights
  constexpr int R = kAcc / (2 * NN) > 0 ? kAcc / (2 * NN) : 1;
  int o = o_begin;
  for (; o + R <= o_end; o += R) matvec_group<V, R, NN, WT>(out, inp, weight, ldw, bias, C, OC, o, n0);
  for (; o < o_end; ++o) matvec_group<V, 1, NN, WT>(out, inp, weight, ldw, bias, C, OC, o, n0);
}

// The per-ISA entry point: inputs in groups of up to 4 (each group streams the weight rows once).
template <class V, class WT>
inline void matvec_rows(float* out, const float* inp, const WT* weight, int64_t ldw,
                        const float* bias, int N, int C, int OC, int o_begin, int o_end) {
  for (int n0 = 0; n0 < N; n0 += 4) {
    switch (N - n0 < 4 ? N - n0 : 4) {
      case 1:
        matvec_inputs<V, 1, WT>(out, inp, weight, ldw, bias, C, OC, o_begin, o_end, n0);
        break;
      case 2:
        matvec_inputs<V, 2, WT>(out, inp, weight, ldw, bias, C, OC, o_begin, o_end, n0);
        break;
      case 3:
        matvec_inputs<V, 3, WT>(out, inp, weight, ldw, bias, C, OC, o_begin, o_end, n0);
        break;
      default:
        matvec_inputs<V, 4, WT>(out, inp, weight, ldw, bias, C, OC, o_begin, o_end, n0);
        break;
    }
  }
}
