// multi_head.cpp: `scratchgpt lesson multi-head`, Raschka ch. 3.6: several causal heads stacked
// (MultiHeadAttentionWrapper) and the efficient MultiHeadAttention that splits one projection.
// PyTorch twin: lesson_multi_head in tools/make_lesson_fixtures.py.
// Modules: src/stones/multi_head_attention.h.

#include <vector>

#include "core/rng.h"
#include "lessons/lesson.h"
#include "stones/multi_head_attention.h"

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

  step(os, "Batched matrix multiplication over heads");
  say(os,
      "With a (b, num_heads, T, head_dim) tensor, a @ a.transpose(2, 3) multiplies every head's "
      "(T, head_dim) matrix by its transpose at once, the same as doing each head separately.");
  const float a[1 * 2 * 3 * 4] = {0.2745f, 0.6584f, 0.2775f, 0.8573f, 0.8993f, 0.0390f,
                                  0.9268f, 0.7388f, 0.7179f, 0.7058f, 0.9156f, 0.4340f,
                                  0.0772f, 0.3565f, 0.1479f, 0.5331f, 0.4066f, 0.2318f,
                                  0.4545f, 0.9737f, 0.4606f, 0.5159f, 0.4220f, 0.5786f};
  float aat[2 * 3 * 3];  // (1, 2, 3, 3)
  for (int h = 0; h < 2; ++h)
    for (int i = 0; i < 3; ++i)
      for (int j = 0; j < 3; ++j) {
        float dot = 0;
        for (int d = 0; d < 4; ++d) dot += a[(h * 3 + i) * 4 + d] * a[(h * 3 + j) * 4 + d];
        aat[(h * 3 + i) * 3 + j] = dot;
      }
  show(os, "a @ a.transpose(2, 3):", aat, {1, 2, 3, 3});
  show(os, "First head:", aat, {3, 3});
  show(os, "Second head:", aat + 9, {3, 3});

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
