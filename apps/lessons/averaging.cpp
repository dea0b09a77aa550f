// averaging.cpp: `scratchgpt lesson averaging`, the lecture's "mathematical trick in
// self-attention": xbow[b, t] = mean of x[b, 0..t], by loops, by a tril matrix, by softmax.
// PyTorch twin: lesson_averaging in tools/lesson_fixtures/lecture.py. Module:
// src/stones/bow_average.h.

#include <cmath>
#include <cstdio>
#include <string>
#include <vector>

#include "core/rng.h"
#include "lessons/lesson.h"
#include "stones/bow_average.h"
#include "stones/self_attention.h"

namespace scratchgpt::lessons {

namespace {
bool allclose(const std::vector<float>& a, const std::vector<float>& b) {
  // torch.allclose: |a - b| <= atol + rtol * |b| with rtol 1e-5, atol 1e-8
  for (size_t i = 0; i < a.size(); ++i)
    if (std::fabs(a[i] - b[i]) > 1e-8 + 1e-5 * std::fabs(b[i])) return false;
  return true;
}
// "7 = 3 + 4": the first column of c = a @ b worked out row by row, as running sums of b
// divided by how many rows they hold (b: (3, 2) of small integers, c: (3, 2)).
void running_sums(LessonOut& lout, const float* b, const float* c) {
  say(lout,
      "Row t of a has t+1 equal entries 1/(t+1), so row t of c is a running sum of the rows of b "
      "up to t, divided by t+1. The first column, by hand:");
  float sum = 0;
  std::string terms;
  for (int t = 0; t < 3; ++t) {
    sum += b[t * 2];
    terms += (t ? " + " : "") + std::to_string(static_cast<int>(b[t * 2]));
    char avg[32];
    std::snprintf(avg, sizeof avg, "%.4f", static_cast<double>(c[t * 2]));
    lout.line("  c[" + std::to_string(t) + ", 0]: " + terms + " = " +
              std::to_string(static_cast<int>(sum)) + ", / " + std::to_string(t + 1) + " = " + avg);
  }
  say(lout,
      "Without the division (a = tril(ones(3, 3))), c would hold the sums themselves: "
      "tril @ b adds up everything up to each row.");
}

}  // namespace

void lesson_averaging(const LessonOptions& opt, LessonOut& lout) {
  // The lecture's sizes and seed unless --B --T --C --seed say otherwise.
  const int B = opt.B.value_or(4), T = opt.T.value_or(8), C = opt.C.value_or(2);
  const uint64_t seed = opt.seed.value_or(1337);
  check_elements(int64_t{B} * T * C + int64_t{T} * T, "--B, --T, --C");
  Rng rng;
  step(lout, "A toy sequence");
  say(lout, "torch.manual_seed(" + seed_text(seed) + "); B, T, C = " + std::to_string(B) + ", " +
                std::to_string(T) + ", " + std::to_string(C) + "; x = torch.randn(B, T, C).");
  say(lout,
      "We want each token to talk to the tokens before it: x[b, t] should become the mean of "
      "x[b, 0..t].");
  rng.manual_seed(seed);
  const int64_t n = int64_t{B} * T * C;
  std::vector<float> x(n);  // (B, T, C)
  rng.randn(x.data(), n);
  show_size(lout, "x.shape:", {B, T, C});

  step(lout, "Version 1: for-loops");
  say(lout, "xbow[b, t] = torch.mean(x[b, :t+1], 0), one (b, t) at a time.");
  std::vector<float> xbow(x.size());  // (B, T, C)
  stones::bow_average_loops(xbow.data(), x.data(), B, T, C);
  show(lout, "x[0]:", x.data(), {T, C});
  show(lout, "xbow[0]:", xbow.data(), {T, C});

  step(lout, "The trick: a weighted sum is a matrix multiply");
  say(lout,
      "torch.manual_seed(42); a = tril(ones(3, 3)) with rows divided by their sums; "
      "b = torch.randint(0, 10, (3, 2)).float(); c = a @ b averages the rows of b.");
  rng.manual_seed(42);
  std::vector<float> a(9);
  stones::bow_weights_tril(a.data(), 3);
  int64_t bi[6];
  rng.randint(bi, 6, 0, 10);
  std::vector<float> b(bi, bi + 6), c(6);
  stones::mm(c.data(), a.data(), b.data(), 3, 3, 2);
  show(lout, "a=", a.data(), {3, 3});
  show(lout, "b=", b.data(), {3, 2});
  show(lout, "c=", c.data(), {3, 2});
  running_sums(lout, b.data(), c.data());

  step(lout, "Version 2: wei = tril / row sums, xbow2 = wei @ x");
  say(lout, "The (T, T) weights broadcast over the batch: (B, T, T) @ (B, T, C) -> (B, T, C).");
  std::vector<float> wei(int64_t{T} * T), xbow2(x.size());  // (T, T), (B, T, C)
  stones::bow_weights_tril(wei.data(), T);
  stones::bow_apply(xbow2.data(), wei.data(), x.data(), B, T, C);
  show(lout, "wei:", wei.data(), {T, T});
  label_scores(lout, T, false);
  show(lout, "xbow2[0]:", xbow2.data(), {T, C});
  lout.line(std::string("allclose(xbow, xbow2): ") + (allclose(xbow, xbow2) ? "True" : "False"));

  step(lout, "Version 3: softmax over -inf");
  say(lout,
      "wei = zeros(T, T).masked_fill(tril == 0, float('-inf')); softmax turns 0 into equal "
      "weights and -inf into 0. Later these zeros become learned affinities: self-attention.");
  stones::bow_weights_softmax(wei.data(), T, /*before_softmax=*/true);
  show(lout, "wei (masked):", wei.data(), {T, T});
  label_scores(lout, T, false);
  stones::bow_weights_softmax(wei.data(), T);
  show(lout, "wei (softmax):", wei.data(), {T, T});
  label_scores(lout, T, false);
  std::vector<float> xbow3(x.size());  // (B, T, C)
  stones::bow_apply(xbow3.data(), wei.data(), x.data(), B, T, C);
  show(lout, "xbow3[0]:", xbow3.data(), {T, C});
  lout.line(std::string("allclose(xbow, xbow3): ") + (allclose(xbow, xbow3) ? "True" : "False"));
}

}  // namespace scratchgpt::lessons
