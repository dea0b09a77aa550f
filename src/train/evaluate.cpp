// evaluate.cpp: see evaluate.h.
#include "train/evaluate.h"

#include <algorithm>

#include "core/check.h"
#include "data/dataset.h"

namespace scratchgpt {

float estimate_loss(LanguageModel& model, const std::vector<uint32_t>& data, int B, int T,
                    int eval_iters, Rng& rng, std::vector<int32_t>& x, std::vector<int32_t>& y,
                    Comm& comm) {
  const int N = comm.size(), per = (eval_iters + N - 1) / N;
  std::vector<float> mine(static_cast<size_t>(per), 0.0f), all(static_cast<size_t>(per) * N);
  for (int k = 0; k < eval_iters; ++k) {
    get_batch(data.data(), static_cast<int64_t>(data.size()), B, T, rng, x.data(), y.data());
    if (k % N == comm.rank()) mine[static_cast<size_t>(k / N)] = model.forward(x.data(), y.data(), B, T, nullptr);
  }
  comm.all_gather(mine, all);
  double sum = 0;
  for (int k = 0; k < eval_iters; ++k) sum += all[static_cast<size_t>(k % N) * per + k / N];
  return static_cast<float>(sum / eval_iters);
}

float estimate_loss(LanguageModel& model, const std::vector<uint32_t>& data, int B, int T,
                    int eval_iters, Rng& rng, std::vector<int32_t>& x, std::vector<int32_t>& y) {
  NullComm one;
  return estimate_loss(model, data, B, T, eval_iters, rng, x, y, one);
}

FullLoss full_loss(LanguageModel& model, const uint32_t* data, int64_t n, int B, int T) {
  SG_CHECK(B > 0 && T > 0, "full_loss needs B, T > 0, got B=", B, " T=", T);
  SG_CHECK(n >= int64_t{T} + 1, "the split has ", n, " tokens, fewer than block_size + 1 = ", T + 1,
           ": use a smaller --block-size");
  FullLoss r;
  r.windows = (n - 1) / T;
  r.tokens = r.windows * T;
  std::vector<int32_t> x(static_cast<size_t>(B) * T), y(x.size());  // (B, T)
  double sum = 0;  // sum of per-token losses, from each batch's mean
  for (int64_t w0 = 0; w0 < r.windows; w0 += B) {
    const int b = static_cast<int>(std::min<int64_t>(B, r.windows - w0));
    for (int i = 0; i < b; ++i) {
      const uint32_t* src = data + (w0 + i) * T;
      for (int t = 0; t < T; ++t) {
        x[static_cast<size_t>(i) * T + t] = src[t];
        y[static_cast<size_t>(i) * T + t] = src[t + 1];
      }
    }
    sum += static_cast<double>(model.forward(x.data(), y.data(), b, T, nullptr)) * b * T;
  }
  r.loss = sum / static_cast<double>(r.tokens);
  return r;
}

}  // namespace scratchgpt
