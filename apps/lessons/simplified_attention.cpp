// simplified_attention.cpp: `scratchgpt lesson simplified-attention`, Raschka ch. 3.3: attention
// with no trainable weights over "Your journey starts with one step".
// PyTorch twin: lesson_simplified_attention in tools/make_lesson_fixtures.py.
// Module: stones::SimplifiedAttention (src/nn/self_attention.h).
#include <cmath>
#include <vector>

#include "kernels/ref/softmax.h"
#include "lessons/lesson.h"
#include "nn/self_attention.h"

namespace scratchgpt::lessons {

void lesson_simplified_attention(const LessonOptions&, std::ostream& os) {
  const int T = 6, C = 3;
  const float* inputs = kJourneyInputs;  // (T, C)
  step(os, "Attention scores for one query");
  say(os, "The 2nd token, \"journey\" (x^2), is the query; its score with every token is a dot "
          "product.");
  const float* query = inputs + 1 * C;  // (C)
  std::vector<float> attn_scores_2(T);  // (T)
  for (int i = 0; i < T; ++i) {
    float dot = 0;
    for (int c = 0; c < C; ++c) dot += inputs[i * C + c] * query[c];
    attn_scores_2[i] = dot;
  }
  show(os, "attn_scores_2:", attn_scores_2.data(), {T});

  step(os, "Normalising the scores into weights");
  say(os, "Dividing by the sum makes them sum to one ...");
  float total = 0;
  for (float s : attn_scores_2) total += s;
  std::vector<float> w_tmp(T), w_naive(T), w(T);
  float sum = 0;
  for (int i = 0; i < T; ++i) sum += (w_tmp[i] = attn_scores_2[i] / total);
  show(os, "Attention weights:", w_tmp.data(), {T});
  show_scalar(os, "Sum:", sum);
  say(os, "... but softmax is better behaved: exp(x) / exp(x).sum() (naive) ...");
  float exp_sum = 0;
  for (int i = 0; i < T; ++i) exp_sum += std::exp(attn_scores_2[i]);
  sum = 0;
  for (int i = 0; i < T; ++i) sum += (w_naive[i] = std::exp(attn_scores_2[i]) / exp_sum);
  show(os, "Attention weights:", w_naive.data(), {T});
  show_scalar(os, "Sum:", sum);
  say(os, "... and torch.softmax subtracts the maximum first, so large scores cannot overflow.");
  ref::softmax_forward(w.data(), attn_scores_2.data(), 1, T);
  sum = 0;
  for (float v : w) sum += v;
  show(os, "Attention weights:", w.data(), {T});
  show_scalar(os, "Sum:", sum);

  step(os, "The context vector z^(2)");
  say(os, "The weighted sum of all inputs: context_vec_2 += attn_weights_2[i] * x_i.");
  std::vector<float> context_vec_2(C, 0.0f);  // (C)
  for (int i = 0; i < T; ++i)
    for (int c = 0; c < C; ++c) context_vec_2[c] += w[i] * inputs[i * C + c];
  show(os, "context_vec_2:", context_vec_2.data(), {C});

  step(os, "All queries at once");
  say(os, "Every token as the query: two for-loops, or simply inputs @ inputs.T.");
  std::vector<float> loops(T * T);  // (T, T)
  for (int i = 0; i < T; ++i)
    for (int j = 0; j < T; ++j) {
      float dot = 0;
      for (int c = 0; c < C; ++c) dot += inputs[i * C + c] * inputs[j * C + c];
      loops[i * T + j] = dot;
    }
  show(os, "attn_scores (loops):", loops.data(), {T, T});
  stones::SimplifiedAttention<float> attention;
  std::vector<float> all_context_vecs(T * C);  // (T, C)
  attention.forward(all_context_vecs.data(), inputs, T, C);
  show(os, "attn_scores (inputs @ inputs.T):", attention.scores.data(), {T, T});
  show(os, "attn_weights:", attention.weights.data(), {T, T});
  std::vector<float> row_sums(T, 0.0f);
  for (int i = 0; i < T; ++i)
    for (int j = 0; j < T; ++j) row_sums[i] += attention.weights[i * T + j];
  show(os, "All row sums:", row_sums.data(), {T});
  say(os, "all_context_vecs = attn_weights @ inputs; its 2nd row is z^(2) from before.");
  show(os, "all_context_vecs:", all_context_vecs.data(), {T, C});
  show(os, "Previous 2nd context vector:", context_vec_2.data(), {C});
}

}  // namespace scratchgpt::lessons
