// block.cpp: `scratchgpt lesson block`, the lecture's transformer Block (pre-layernorm,
// residual connections): x = x + sa(ln1(x)); x = x + ffwd(ln2(x)), shown step by step.
// Built from the lecture's modules (stones::LectureMultiHeadAttention, stones::FeedForward) so
// the seeded weights are drawn in the lecture's order. PyTorch twin: lesson_block in
// tools/make_lesson_fixtures.py. Engine twin: src/nn/block.h.
// PyTorch rounds every product before adding it; keep the compiler from fusing a*b+c into one
// FMA (GCC contracts by default in C++), so the lessons print the digits PyTorch prints.
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC optimize("fp-contract=off")
#endif

#include <vector>

#include "core/rng.h"
#include "kernels/ref/layernorm.h"
#include "lessons/lesson.h"
#include "nn/feed_forward.h"
#include "nn/multi_head_attention.h"

namespace scratchgpt::lessons {

void lesson_block(const LessonOptions&, std::ostream& os) {
  const int n_embd = 8, n_head = 2, block_size = 8, B = 2, T = 4, C = n_embd;
  const int head_size = n_embd / n_head;
  Rng rng;
  step(os, "A Block");
  say(os, "torch.manual_seed(1337); block = Block(n_embd=8, n_head=2): "
          "sa = MultiHeadAttention(2 heads of 4), ffwd = FeedForward (8 -> 32 -> 8 with ReLU), "
          "ln1, ln2 = nn.LayerNorm(8). Then x = torch.randn(2, 4, 8).");
  rng.manual_seed(1337);
  stones::LectureMultiHeadAttention<float> sa(n_embd, n_head, head_size, block_size, 0.0f);
  sa.init(rng);
  stones::FeedForward<float> ffwd(n_embd, 0.0f);
  ffwd.init(rng);
  std::vector<float> ln_w(C, 1.0f), ln_b(C, 0.0f);  // nn.LayerNorm starts at weight 1, bias 0
  std::vector<float> x(B * T * C);                   // (B, T, C)
  rng.randn(x.data(), B * T * C);
  show(os, "x[0]:", x.data(), {T, C});

  const int N = B * T;
  std::vector<float> h(N * C), mean(N), rstd(N), a(N * C), x1(N * C), f(N * C), out(N * C);
  step(os, "Communication: x + sa(ln1(x))");
  say(os, "Pre-norm: each token's features are normalised to mean 0, variance 1 first.");
  ref::layernorm_forward(h.data(), mean.data(), rstd.data(), x.data(), ln_w.data(), ln_b.data(), N,
                         C);
  show(os, "ln1(x)[0]:", h.data(), {T, C});
  say(os, "The heads let tokens exchange information (causally); the projection mixes the heads.");
  sa.forward(a.data(), h.data(), B, T);
  show(os, "sa(ln1(x))[0]:", a.data(), {T, C});
  say(os, "The residual connection adds it to x: gradients flow straight through the sum.");
  for (int i = 0; i < N * C; ++i) x1[i] = x[i] + a[i];
  show(os, "x + sa(ln1(x)) [0]:", x1.data(), {T, C});

  step(os, "Computation: x + ffwd(ln2(x))");
  say(os, "Each token then thinks on its own: Linear(8, 32), ReLU, Linear(32, 8).");
  ref::layernorm_forward(h.data(), mean.data(), rstd.data(), x1.data(), ln_w.data(), ln_b.data(),
                         N, C);
  ffwd.forward(f.data(), h.data(), N);
  show(os, "ffwd(ln2(x))[0]:", f.data(), {T, C});
  for (int i = 0; i < N * C; ++i) out[i] = x1[i] + f[i];
  show(os, "out[0]:", out.data(), {T, C});
  show_size(os, "out.shape:", {B, T, C});
}

}  // namespace scratchgpt::lessons
