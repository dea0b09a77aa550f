// averaging.cpp: `scratchgpt lesson averaging`, the lecture's "mathematical trick in
// self-attention": xbow[b, t] = mean of x[b, 0..t], by loops, by a tril matrix, by softmax.
// PyTorch twin: lesson_averaging in tools/make_lesson_fixtures.py. Module: src/stones/bow_average.h.

#include <cmath>
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
}  // namespace

void lesson_averaging(const LessonOptions&, std::ostream& os) {
  Rng rng;
  step(os, "A toy sequence");
  say(os, "torch.manual_seed(1337); B, T, C = 4, 8, 2; x = torch.randn(B, T, C).");
  say(os,
      "We want each token to talk to the tokens before it: x[b, t] should become the mean of "
      "x[b, 0..t].");
  rng.manual_seed(1337);
  const int B = 4, T = 8, C = 2;
  std::vector<float> x(B * T * C);  // (B, T, C)
  rng.randn(x.data(), B * T * C);
  show_size(os, "x.shape:", {B, T, C});

  step(os, "Version 1: for-loops");
  say(os, "xbow[b, t] = torch.mean(x[b, :t+1], 0), one (b, t) at a time.");
  std::vector<float> xbow(x.size());  // (B, T, C)
  stones::bow_average_loops(xbow.data(), x.data(), B, T, C);
  show(os, "x[0]:", x.data(), {T, C});
  show(os, "xbow[0]:", xbow.data(), {T, C});

  step(os, "The trick: a weighted sum is a matrix multiply");
  say(os,
      "torch.manual_seed(42); a = tril(ones(3, 3)) with rows divided by their sums; "
      "b = torch.randint(0, 10, (3, 2)).float(); c = a @ b averages the rows of b.");
  rng.manual_seed(42);
  std::vector<float> a(9);
  stones::bow_weights_tril(a.data(), 3);
  int64_t bi[6];
  rng.randint(bi, 6, 0, 10);
  std::vector<float> b(bi, bi + 6), c(6);
  stones::mm(c.data(), a.data(), b.data(), 3, 3, 2);
  show(os, "a=", a.data(), {3, 3});
  show(os, "b=", b.data(), {3, 2});
  show(os, "c=", c.data(), {3, 2});

  step(os, "Version 2: wei = tril / row sums, xbow2 = wei @ x");
  say(os, "The (T, T) weights broadcast over the batch: (B, T, T) @ (B, T, C) -> (B, T, C).");
  std::vector<float> wei(T * T), xbow2(x.size());  // (T, T), (B, T, C)
  stones::bow_weights_tril(wei.data(), T);
  stones::bow_apply(xbow2.data(), wei.data(), x.data(), B, T, C);
  show(os, "wei:", wei.data(), {T, T});
  show(os, "xbow2[0]:", xbow2.data(), {T, C});
  os << "allclose(xbow, xbow2): " << (allclose(xbow, xbow2) ? "True" : "False") << "\n";

  step(os, "Version 3: softmax over -inf");
  say(os,
      "wei = zeros(T, T).masked_fill(tril == 0, float('-inf')); softmax turns 0 into equal "
      "weights and -inf into 0. Later these zeros become learned affinities: self-attention.");
  stones::bow_weights_softmax(wei.data(), T, /*before_softmax=*/true);
  show(os, "wei (masked):", wei.data(), {T, T});
  stones::bow_weights_softmax(wei.data(), T);
  show(os, "wei (softmax):", wei.data(), {T, T});
  std::vector<float> xbow3(x.size());  // (B, T, C)
  stones::bow_apply(xbow3.data(), wei.data(), x.data(), B, T, C);
  show(os, "xbow3[0]:", xbow3.data(), {T, C});
  os << "allclose(xbow, xbow3): " << (allclose(xbow, xbow3) ? "True" : "False") << "\n";
}

}  // namespace scratchgpt::lessons
