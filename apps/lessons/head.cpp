// head.cpp: `scratchgpt lesson head`, the lecture's "version 4: self-attention": one Head with
// key, query and value Linear layers, the tril mask, softmax, and why scores are scaled by
// head_size**-0.5. PyTorch twin: lesson_head in tools/lesson_fixtures/lecture.py.
// Module: stones::Head (src/stones/head.h).

#include "stones/head.h"

#include <algorithm>
#include <iostream>
#include <limits>
#include <string>
#include <vector>

#include "core/rng.h"
#include "kernels/ref/softmax.h"
#include "lessons/lesson.h"
#include "lessons/trace_page.h"

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

void lesson_head(const LessonOptions& opt, LessonOut& lout) {
  // The lecture's sizes and seed unless --B --T --C --head-size --seed say otherwise.
  const int B = opt.B.value_or(4), T = opt.T.value_or(8), C = opt.C.value_or(32);
  const int HS = opt.head_size.value_or(16);
  const uint64_t seed = opt.seed.value_or(1337);
  check_elements(int64_t{B} * T * (C + 6 * HS) + int64_t{B} * T * T * 3 + int64_t{C} * HS * 3,
                 "--B, --T, --C, --head-size");
  const std::string c = std::to_string(C), hs = std::to_string(HS);
  // The draws first (x, then key, query, value), so that an unwritable --html fails before any
  // output; the sentences draw nothing.
  Rng rng;
  rng.manual_seed(seed);
  std::vector<float> x(int64_t{B} * T * C);  // (B, T, C)
  rng.randn(x.data(), static_cast<int64_t>(x.size()));
  stones::Head<float> head(C, HS, T, 0.0f);
  head.init(rng);
  std::vector<TraceMatrix> trace;
  if (opt.trace || !opt.html.empty())
    trace = trace_head(head, x, B, T, C, "x = torch.randn(B, T, C)");
  if (!opt.html.empty()) {
    write_trace_page(
        opt.html, opt.overwrite, "One self-attention Head, traced (scratchgpt lesson head)",
        "torch.manual_seed(" + seed_text(seed) + "); x = torch.randn(" + std::to_string(B) + ", " +
            std::to_string(T) + ", " + c + "); key, query, value = nn.Linear(" + c + ", " + hs +
            ", bias=False). Batch element 0, every intermediate in order.",
        kHeadTraceCode, trace);
    std::cerr << "wrote " << opt.html << "\n";
  }
  step(lout, "A single Head");
  say(lout, "torch.manual_seed(" + seed_text(seed) + "); x = torch.randn(" + std::to_string(B) +
              ", " + std::to_string(T) + ", " + c + "); key, query, value = nn.Linear(" + c + ", " +
              hs + ", bias=False), created in that order.");
  say(lout,
      "Every token emits a query (what am I looking for?) and a key (what do I contain?); "
      "wei = q @ k.transpose(-2, -1) makes the affinities data-dependent.");
  std::vector<float> out(int64_t{B} * T * HS);  // (B, T, HS)
  if (opt.trace) {
    step(lout, "Trace: one Head on batch element 0");
    say(lout, kHeadTraceCode);
    print_trace(lout, trace);
    return;
  }
  say(lout,
      "The lecture's first version has no scaling: wei = q @ k^T, tril mask, softmax, "
      "out = wei @ v.");
  head.scaled = false;
  head.forward(out.data(), x.data(), B, T);
  show_size(lout, "out.shape:", {B, T, HS});
  show(lout, "wei[0] (unscaled):", head.wei.data(), {T, T});

  step(lout, "Scaled attention");
  say(lout,
      "wei = q @ k^T * head_size**-0.5 keeps the variance of wei near 1, so softmax stays "
      "diffuse at initialisation instead of converging to one-hot vectors.");
  head.scaled = true;
  head.forward(out.data(), x.data(), B, T);
  show(lout, "wei[0] (scaled):", head.wei.data(), {T, T});
  show(lout, "out[0, 0, :4]:", out.data(), {std::min(HS, 4)});

  step(lout, "Why scale: the variance of the scores");
  say(lout,
      "k = torch.randn(B, T, head_size); q = torch.randn(B, T, head_size); "
      "wei = q @ k^T * head_size**-0.5 has variance ~1 (without the scale it would be ~" +
          hs + ").");
  std::vector<float> k(int64_t{B} * T * HS), q(k.size()), wei(int64_t{B} * T * T);
  // (B,T,HS) x2, (B,T,T)
  rng.randn(k.data(), static_cast<int64_t>(k.size()));
  rng.randn(q.data(), static_cast<int64_t>(q.size()));
  for (int b = 0; b < B; ++b)
    for (int t = 0; t < T; ++t)
      for (int s = 0; s < T; ++s) {
        float dot = 0;
        for (int i = 0; i < HS; ++i)
          dot += q[(int64_t{b} * T + t) * HS + i] * k[(int64_t{b} * T + s) * HS + i];
        wei[(int64_t{b} * T + t) * T + s] =
            stones::apply_scale(dot, stones::Scale::kMultiplyInvSqrt, HS);
      }
  show_scalar(lout, "k.var():", variance(k));
  show_scalar(lout, "q.var():", variance(q));
  show_scalar(lout, "wei.var():", variance(wei));
  say(lout, "softmax of large values sharpens towards the maximum:");
  const float v[5] = {0.1f, -0.2f, 0.3f, -0.2f, 0.5f};
  float v8[5], p[5];
  ref::softmax_forward(p, v, 1, 5);
  show(lout, "softmax:", p, {5});
  for (int i = 0; i < 5; ++i) v8[i] = v[i] * 8;
  ref::softmax_forward(p, v8, 1, 5);
  show(lout, "softmax(8x):", p, {5});
}

}  // namespace scratchgpt::lessons
