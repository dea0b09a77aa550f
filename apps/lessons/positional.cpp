// positional.cpp: `scratchgpt lesson positional`, the lecture's v2 model input: token embeddings
// plus position embeddings, x = token_embedding_table(idx) + position_embedding_table(arange(T)).
// PyTorch twin: lesson_positional in tools/lesson_fixtures/lecture.py.
// Kernel: ref::encoder_forward.

#include <vector>

#include "core/check.h"
#include "core/rng.h"
#include "kernels/ref/encoder.h"
#include "lessons/lesson.h"
#include "nn/init.h"

namespace scratchgpt::lessons {

void lesson_positional(const LessonOptions& opt, LessonOut& lout) {
  // The lecture's sizes and seed unless --B --T --C --block-size --seed say otherwise.
  const int V = 10, B = opt.B.value_or(2), T = opt.T.value_or(4), C = opt.C.value_or(4);
  const int block_size = opt.block_size.value_or(8);
  const uint64_t seed = opt.seed.value_or(1337);
  if (T > block_size)
    fail("--T ", T, " exceeds the block size ", block_size,
         " (position_embedding_table has block_size rows; raise --block-size)");
  check_elements(int64_t{B} * T * C * 3 + int64_t{block_size} * C, "--B, --T, --C, --block-size");
  Rng rng;
  step(lout, "Two embedding tables");
  say(lout, "torch.manual_seed(" + seed_text(seed) +
              "); token_embedding_table = nn.Embedding(vocab_size=10, n_embd=" + std::to_string(C) +
              "); position_embedding_table = nn.Embedding(block_size=" +
              std::to_string(block_size) + ", n_embd=" + std::to_string(C) + ").");
  rng.manual_seed(seed);
  std::vector<float> wte(int64_t{V} * C), wpe(int64_t{block_size} * C);  // (V, C), (block_size, C)
  init_embedding(rng, wte.data(), V, C);
  init_embedding(rng, wpe.data(), block_size, C);
  // idx (B, T): row 0 is token 5 at every position; row b > 0 alternates tokens b and b + 1
  // (mod 10): the lecture's [[5, 5, 5, 5], [1, 2, 1, 2]] at B = 2, T = 4.
  std::vector<int32_t> idx(int64_t{B} * T);
  std::vector<int64_t> idx64(idx.size());
  for (int b = 0; b < B; ++b)
    for (int t = 0; t < T; ++t)
      idx64[int64_t{b} * T + t] = idx[int64_t{b} * T + t] = b == 0 ? 5 : (b + t % 2) % V;
  show(lout, "idx:", idx64.data(), {B, T});

  step(lout, "Token embeddings know what, not where");
  say(lout,
      "tok_emb = token_embedding_table(idx): the same token 5 gets the same vector at every "
      "position, so attention alone could not tell the order of the tokens.");
  std::vector<float> tok_emb(int64_t{B} * T * C), pos_emb(int64_t{T} * C), x(tok_emb.size());
  // (B,T,C), (T,C), (B,T,C)
  ref::encoder_forward(tok_emb.data(), idx.data(), wte.data(), static_cast<const float*>(nullptr),
                       B, T, C);
  show_size(lout, "tok_emb.shape:", {B, T, C});
  show(lout, "tok_emb[0]:", tok_emb.data(), {T, C});

  step(lout, "Position embeddings");
  say(lout,
      "pos_emb = position_embedding_table(torch.arange(T)): one learned vector per position "
      "0..T-1.");
  std::copy(wpe.begin(), wpe.begin() + T * C, pos_emb.begin());
  show_size(lout, "pos_emb.shape:", {T, C});
  show(lout, "pos_emb:", pos_emb.data(), {T, C});

  step(lout, "x = tok_emb + pos_emb");
  say(lout, "(B, T, C) + (T, C) broadcasts over the batch; now token 5 differs at each position.");
  ref::encoder_forward(x.data(), idx.data(), wte.data(), wpe.data(), B, T, C);
  show_size(lout, "x.shape:", {B, T, C});
  show(lout, "x[0]:", x.data(), {T, C});
  if (B > 1) show(lout, "x[1]:", x.data() + int64_t{T} * C, {T, C});
}

}  // namespace scratchgpt::lessons
