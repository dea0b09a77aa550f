// bow_average.cpp: the three averaging methods, for float and double.

#include "stones/bow_average.h"

#include <limits>
#include <vector>

#include "kernels/ref/softmax.h"

namespace scratchgpt::stones {

template <typename F>
void bow_average_loops(F* out, const F* x, int B, int T, int C) {
  for (int b = 0; b < B; ++b)
    for (int t = 0; t < T; ++t) {
      F* o = out + (static_cast<int64_t>(b) * T + t) * C;  // (C)
      for (int c = 0; c < C; ++c) {
        F sum = 0;  // torch.mean: sum the rows 0..t in order, then divide
        for (int i = 0; i <= t; ++i) sum += x[(static_cast<int64_t>(b) * T + i) * C + c];
        o[c] = sum / static_cast<F>(t + 1);
      }
    }
}

template <typename F>
void bow_weights_tril(F* wei, int T) {
  for (int t = 0; t < T; ++t)
    for (int s = 0; s < T; ++s) wei[t * T + s] = s <= t ? F(1) : F(0);  // torch.tril(ones)
  for (int t = 0; t < T; ++t) {
    F sum = 0;
    for (int s = 0; s < T; ++s) sum += wei[t * T + s];
    for (int s = 0; s < T; ++s) wei[t * T + s] = wei[t * T + s] / sum;
  }
}

template <typename F>
void bow_weights_softmax(F* wei, int T, bool before_softmax) {
  const F neg_inf = -std::numeric_limits<F>::infinity();
  for (int t = 0; t < T; ++t)
    for (int s = 0; s < T; ++s) wei[t * T + s] = s <= t ? F(0) : neg_inf;
  if (before_softmax) return;
  std::vector<F> z(wei, wei + static_cast<int64_t>(T) * T);
  ref::softmax_forward(wei, z.data(), T, T);
}

template <typename F>
void bow_apply(F* out, const F* wei, const F* x, int B, int T, int C) {
  for (int b = 0; b < B; ++b)
    for (int t = 0; t < T; ++t)
      for (int c = 0; c < C; ++c) {
        F acc = 0;
        for (int s = 0; s < T; ++s)
          acc += wei[t * T + s] * x[(static_cast<int64_t>(b) * T + s) * C + c];
        out[(static_cast<int64_t>(b) * T + t) * C + c] = acc;
      }
}

template <typename F>
void bow_apply_backward(F* dx, const F* wei, const F* dout, int B, int T, int C) {
  // xbow2 = wei @ x  ->  dx = wei^T @ dout
  for (int b = 0; b < B; ++b)
    for (int s = 0; s < T; ++s)
      for (int c = 0; c < C; ++c) {
        F acc = 0;
        for (int t = 0; t < T; ++t)
          acc += wei[t * T + s] * dout[(static_cast<int64_t>(b) * T + t) * C + c];
        dx[(static_cast<int64_t>(b) * T + s) * C + c] += acc;
      }
}

#define SG_BOW_INSTANTIATE(F)                                        \
  template void bow_average_loops<F>(F*, const F*, int, int, int);   \
  template void bow_weights_tril<F>(F*, int);                        \
  template void bow_weights_softmax<F>(F*, int, bool);               \
  template void bow_apply<F>(F*, const F*, const F*, int, int, int); \
  template void bow_apply_backward<F>(F*, const F*, const F*, int, int, int);
SG_BOW_INSTANTIATE(float)
SG_BOW_INSTANTIATE(double)
#undef SG_BOW_INSTANTIATE

}  // namespace scratchgpt::stones
