// encoder.h: token + position embedding, the scalar reference.
// out[b,t,:] = wte[inp[b,t],:] + wpe[t,:]   (wpe may be null: token embedding only, as the bigram)
// Fast twin: none needed (memory bound); cpu:: reuses it.
#pragma once

#include <cstdint>

namespace scratchgpt::ref {

// out (B, T, C); inp (B, T) token ids; wte (V, C); wpe (maxT, C) or nullptr.
template <typename F>
void encoder_forward(F* out, const int32_t* inp, const F* wte, const F* wpe, int B, int T, int C) {
  for (int b = 0; b < B; ++b)
    for (int t = 0; t < T; ++t) {
      F* o = out + (static_cast<int64_t>(b) * T + t) * C;
      const F* e = wte + static_cast<int64_t>(inp[b * T + t]) * C;
      const F* p = wpe ? wpe + static_cast<int64_t>(t) * C : nullptr;
      for (int c = 0; c < C; ++c) o[c] = e[c] + (p ? p[c] : F(0));
    }
}

// Accumulates: dwte[inp[b,t]] += dout[b,t]; dwpe[t] += dout[b,t] (dwpe may be null).
template <typename F>
void encoder_backward(F* dwte, F* dwpe, const F* dout, const int32_t* inp, int B, int T, int C) {
  for (int b = 0; b < B; ++b)
    for (int t = 0; t < T; ++t) {
      const F* d = dout + (static_cast<int64_t>(b) * T + t) * C;
      F* e = dwte + static_cast<int64_t>(inp[b * T + t]) * C;
      F* p = dwpe ? dwpe + static_cast<int64_t>(t) * C : nullptr;
      for (int c = 0; c < C; ++c) {
        e[c] += d[c];
        if (p) p[c] += d[c];
      }
    }
}

}  // namespace scratchgpt::ref
