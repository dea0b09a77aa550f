// sampler.cpp: see sampler.h.
#include "sample/sampler.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>

#include "core/check.h"
#include "kernels/kernels.h"

namespace scratchgpt {

void SamplingOptions::validate() const {
  SG_CHECK(temperature > 0 && std::isfinite(temperature), "temperature must be positive, got ",
           temperature, ": use e.g. --temperature 0.8");
  SG_CHECK(top_k >= 0, "top-k must be >= 0 (0 keeps every token), got ", top_k);
  SG_CHECK(vocab_limit >= 0, "the vocabulary limit must be >= 0 (0: every row), got ", vocab_limit);
  SG_CHECK(top_p > 0 && top_p <= 1, "top-p must be in (0, 1], got ", top_p,
           ": use e.g. --top-p 0.9");
}

void sampling_probs(const ExecContext& ex, const float* logits, int V, const SamplingOptions& opt,
                    float* probs) {
  constexpr float kNegInf = -std::numeric_limits<float>::infinity();
  // logits = logits[:, -1, :] / temperature   (x / 1 is x: no division at temperature 1)
  const float* x = logits;  // what the softmax reads
  if (opt.temperature != 1.0f) {
    for (int v = 0; v < V; ++v) probs[v] = logits[v] / opt.temperature;
    x = probs;
  }
  // top-k: logits[logits < v[:, [-1]]] = -inf, v the k-th largest (ties at the k-th all stay).
  if (opt.top_k > 0 && opt.top_k < V) {
    std::vector<float> sorted(x, x + V);
    std::nth_element(sorted.begin(), sorted.begin() + (opt.top_k - 1), sorted.end(),
                     std::greater<float>());
    const float kth = sorted[opt.top_k - 1];
    for (int v = 0; v < V; ++v) probs[v] = x[v] < kth ? kNegInf : x[v];
    x = probs;
  }
  // probs = F.softmax(logits, dim=-1) (the -inf entries exact zeros)
  kernels::host_softmax_forward(ex, probs, x, 1, V);
  // top-p: keep the most likely tokens until their mass reaches top_p (at least one).
  if (opt.top_p < 1.0f) {
    std::vector<int> order(V);
    std::iota(order.begin(), order.end(), 0);
    std::stable_sort(order.begin(), order.end(), [&](int a, int b) { return probs[a] > probs[b]; });
    double mass = 0;
    int keep = 0;
    while (keep < V && (keep == 0 || mass < opt.top_p)) mass += probs[order[keep++]];
    for (int i = keep; i < V; ++i) probs[order[i]] = 0.0f;
    for (int v = 0; v < V; ++v) probs[v] = static_cast<float>(probs[v] / mass);
  }
}

int32_t sample_token(const ExecContext& ex, const float* logits, int V, const SamplingOptions& opt,
                     Rng& rng, std::vector<float>& scratch) {
  scratch.resize(V);
  sampling_probs(ex, logits, V, opt, scratch.data());
  int64_t tok = 0;
  rng.multinomial(&tok, scratch.data(), 1, V, 1, false);  // torch.multinomial(probs, 1)
  return static_cast<int32_t>(tok);
}

}  // namespace scratchgpt
