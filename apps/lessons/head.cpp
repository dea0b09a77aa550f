// head.cpp: `scratchgpt lesson head`, the lecture's "version 4: self-attention": one Head with
// key, query and value Linear layers, the tril mask, softmax, and why scores are scaled by
// head_size**-0.5. PyTorch twin: lesson_head in tools/make_lesson_fixtures.py.
// Module: stones::Head (src/stones/head.h).

#include "stones/head.h"

#include <vector>

#include "core/rng.h"
#include "kernels/ref/softmax.h"
#include "lessons/lesson.h"

namespace scratchgpt::lessons {

namespace {
// torch.var (unbiased), accumulated in double as PyTorch's Welford reduction does.
float variance(const std::vector<float>& v) {
  double mean = 0;
  for (float x : v) mean += x;
  mean /= static_cast<double>(v.size());
  double ss = 0;
  for (float x : v) ss += (x - mean) * (x - mean);
  return static_cast<float>(ss / static_cast<double>(v.size() - 1));
}
}  // namespace

void lesson_head(const LessonOptions&, std::ostream& os) {
  const int B = 4, T = 8, C = 32, HS = 16;
  Rng rng;
  step(os, "A single Head");
  say(os,
      "torch.manual_seed(1337); x = torch.randn(4, 8, 32); key, query, value = "
      "nn.Linear(32, 16, bias=False), created in that order.");
  say(os,
      "Every token emits a query (what am I looking for?) and a key (what do I contain?); "
      "wei = q @ k.transpose(-2, -1) makes the affinities data-dependent.");
  rng.manual_seed(1337);
  std::vector<float> x(B * T * C);  // (B, T, C)
  rng.randn(x.data(), B * T * C);
  stones::Head<float> head(C, HS, T, 0.0f);
  head.init(rng);
  say(os,
      "The lecture's first version has no scaling: wei = q @ k^T, tril mask, softmax, "
      "out = wei @ v.");
  head.scaled = false;
  std::vector<float> out(B * T * HS);  // (B, T, HS)
  head.forward(out.data(), x.data(), B, T);
  show_size(os, "out.shape:", {B, T, HS});
  show(os, "wei[0] (unscaled):", head.wei.data(), {T, T});

  step(os, "Scaled attention");
  say(os,
      "wei = q @ k^T * head_size**-0.5 keeps the variance of wei near 1, so softmax stays "
      "diffuse at initialisation instead of converging to one-hot vectors.");
  head.scaled = true;
  head.forward(out.data(), x.data(), B, T);
  show(os, "wei[0] (scaled):", head.wei.data(), {T, T});
  show(os, "out[0, 0, :4]:", out.data(), {4});

  step(os, "Why scale: the variance of the scores");
  say(os,
      "k = torch.randn(B, T, head_size); q = torch.randn(B, T, head_size); "
      "wei = q @ k^T * head_size**-0.5 has variance ~1 (without the scale it would be ~16).");
  std::vector<float> k(B * T * HS), q(B * T * HS), wei(B * T * T);  // (B,T,HS) x2, (B,T,T)
  rng.randn(k.data(), B * T * HS);
  rng.randn(q.data(), B * T * HS);
  for (int b = 0; b < B; ++b)
    for (int t = 0; t < T; ++t)
      for (int s = 0; s < T; ++s) {
        float dot = 0;
        for (int i = 0; i < HS; ++i) dot += q[(b * T + t) * HS + i] * k[(b * T + s) * HS + i];
        wei[(b * T + t) * T + s] = stones::apply_scale(dot, stones::Scale::kMultiplyInvSqrt, HS);
      }
  show_scalar(os, "k.var():", variance(k));
  show_scalar(os, "q.var():", variance(q));
  show_scalar(os, "wei.var():", variance(wei));
  say(os, "softmax of large values sharpens towards the maximum:");
  const float v[5] = {0.1f, -0.2f, 0.3f, -0.2f, 0.5f};
  float v8[5], p[5];
  ref::softmax_forward(p, v, 1, 5);
  show(os, "softmax:", p, {5});
  for (int i = 0; i < 5; ++i) v8[i] = v[i] * 8;
  ref::softmax_forward(p, v8, 1, 5);
  show(os, "softmax(8x):", p, {5});
}

}  // namespace scratchgpt::lessons
