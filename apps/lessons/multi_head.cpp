// multi_head.cpp: `scratchgpt lesson multi-head`, Raschka ch. 3.6: several causal heads stacked
// (MultiHeadAttentionWrapper) and the efficient MultiHeadAttention that splits one projection.
// PyTorch twin: lesson_multi_head in tools/make_lesson_fixtures.py.
// Modules: src/nn/multi_head_attention.h.
// PyTorch rounds every product before adding it; keep the compiler from fusing a*b+c into one
// FMA (GCC contracts by default in C++), so the lessons print the digits PyTorch prints.
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC optimize("fp-contract=off")
#endif

#include <vector>

#include "core/rng.h"
#include "lessons/lesson.h"
#include "nn/multi_head_attention.h"

namespace scratchgpt::lessons {

void lesson_multi_head(const LessonOptions&, std::ostream& os) {
  const int B = 2, T = 6, d_in = 3;
  std::vector<float> batch(B * T * d_in);  // (B, T, d_in) = torch.stack((inputs, inputs))
  for (int b = 0; b < B; ++b)
    std::copy(kJourneyInputs, kJourneyInputs + T * d_in, batch.begin() + b * T * d_in);
  Rng rng;
  step(os, "Stacking causal heads");
  say(os,
      "torch.manual_seed(123); MultiHeadAttentionWrapper(d_in=3, d_out=2, context_length=6, "
      "dropout=0.0, num_heads=2) runs two CausalAttention heads and concatenates them: "
      "2 heads x 2 dims = 4 output dims.");
  rng.manual_seed(123);
  stones::MultiHeadAttentionWrapper<float> wrapper(d_in, 2, T, 0.0f, 2);
  wrapper.init(rng);
  std::vector<float> out(B * T * 4);  // (B, T, 4)
  wrapper.forward(out.data(), batch.data(), B, T, &rng);
  show(os, "context_vecs:", out.data(), {B, T, 4});
  show_size(os, "context_vecs.shape:", {B, T, 4});

  step(os, "One projection split across heads");
  say(os,
      "torch.manual_seed(123); MultiHeadAttention(d_in=3, d_out=2, context_length=6, "
      "dropout=0.0, num_heads=2): one W_query/W_key/W_value of d_out columns viewed as "
      "(B, T, num_heads, head_dim) and transposed to (B, num_heads, T, head_dim), then an "
      "output projection out_proj. head_dim = 1 here, and the output has d_out = 2 dims.");
  rng.manual_seed(123);
  stones::MultiHeadAttention<float> mha(d_in, 2, T, 0.0f, 2);
  mha.init(rng);
  out.assign(B * T * 2, 0.0f);  // (B, T, d_out)
  mha.forward(out.data(), batch.data(), B, T, &rng);
  show(os, "context_vecs:", out.data(), {B, T, 2});
  show_size(os, "context_vecs.shape:", {B, T, 2});
}

}  // namespace scratchgpt::lessons
