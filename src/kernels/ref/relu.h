// relu.h: ReLU, the lecture's feed-forward nonlinearity, the scalar reference.
#pragma once

#include <cstdint>

namespace scratchgpt::ref {

// out (n) = max(inp, 0)
template <typename F>
void relu_forward(F* out, const F* inp, int64_t n) {
  for (int64_t i = 0; i < n; ++i) out[i] = inp[i] > F(0) ? inp[i] : F(0);
}

// Writes dinp = dout * (inp > 0) (dinp is not read)
template <typename F>
void relu_backward(F* dinp, const F* inp, const F* dout, int64_t n) {
  for (int64_t i = 0; i < n; ++i) dinp[i] = inp[i] > F(0) ? dout[i] : F(0);
}

}  // namespace scratchgpt::ref
