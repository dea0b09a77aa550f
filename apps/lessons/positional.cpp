// positional.cpp: `scratchgpt lesson positional`, the lecture's v2 model input: token embeddings
// plus position embeddings, x = token_embedding_table(idx) + position_embedding_table(arange(T)).
// PyTorch twin: lesson_positional in tools/make_lesson_fixtures.py. Kernel: ref::encoder_forward.

#include <vector>

#include "core/rng.h"
#include "kernels/ref/encoder.h"
#include "lessons/lesson.h"
#include "nn/init.h"

namespace scratchgpt::lessons {

void lesson_positional(const LessonOptions&, std::ostream& os) {
  const int V = 10, block_size = 8, C = 4, B = 2, T = 4;
  Rng rng;
  step(os, "Two embedding tables");
  say(os,
      "torch.manual_seed(1337); token_embedding_table = nn.Embedding(vocab_size=10, n_embd=4); "
      "position_embedding_table = nn.Embedding(block_size=8, n_embd=4).");
  rng.manual_seed(1337);
  std::vector<float> wte(V * C), wpe(block_size * C);  // (V, C), (block_size, C)
  init_embedding(rng, wte.data(), V, C);
  init_embedding(rng, wpe.data(), block_size, C);
  const int32_t idx[B * T] = {5, 5, 5, 5, 1, 2, 1, 2};  // (B, T)
  const int64_t idx64[B * T] = {5, 5, 5, 5, 1, 2, 1, 2};
  show(os, "idx:", idx64, {B, T});

  step(os, "Token embeddings know what, not where");
  say(os,
      "tok_emb = token_embedding_table(idx): the same token 5 gets the same vector at every "
      "position, so attention alone could not tell the order of the tokens.");
  std::vector<float> tok_emb(B * T * C), pos_emb(T * C), x(B * T * C);  // (B,T,C), (T,C), (B,T,C)
  ref::encoder_forward(tok_emb.data(), idx, wte.data(), static_cast<const float*>(nullptr), B, T,
                       C);
  show_size(os, "tok_emb.shape:", {B, T, C});
  show(os, "tok_emb[0]:", tok_emb.data(), {T, C});

  step(os, "Position embeddings");
  say(os,
      "pos_emb = position_embedding_table(torch.arange(T)): one learned vector per position "
      "0..T-1.");
  std::copy(wpe.begin(), wpe.begin() + T * C, pos_emb.begin());
  show_size(os, "pos_emb.shape:", {T, C});
  show(os, "pos_emb:", pos_emb.data(), {T, C});

  step(os, "x = tok_emb + pos_emb");
  say(os, "(B, T, C) + (T, C) broadcasts over the batch; now token 5 differs at each position.");
  ref::encoder_forward(x.data(), idx, wte.data(), wpe.data(), B, T, C);
  show_size(os, "x.shape:", {B, T, C});
  show(os, "x[0]:", x.data(), {T, C});
  show(os, "x[1]:", x.data() + T * C, {T, C});
}

}  // namespace scratchgpt::lessons
