// simplified_attention.cpp: `scratchgpt lesson simplified-attention`, Raschka ch. 3.3: attention
// with no trainable weights over "Your journey starts with one step".
// PyTorch twin: lesson_simplified_attention in tools/lesson_fixtures/book.py.
// Module: stones::SimplifiedAttention (src/stones/self_attention.h).

#include <cmath>
#include <string>
#include <vector>

#include "kernels/ref/softmax.h"
#include "lessons/lesson.h"
#include "stones/self_attention.h"

namespace scratchgpt::lessons {

namespace {
// tensor.sum() of a short float vector in PyTorch's order: four interleaved accumulators,
// then acc[0] += acc[1], += acc[2], += acc[3] (the rounding decides "1." versus "1.0000").
float torch_sum(const float* x, int n) {
  float acc[4] = {0, 0, 0, 0};
  for (int i = 0; i < n; ++i) acc[i % 4] += x[i];
  return ((acc[0] + acc[1]) + acc[2]) + acc[3];
}
}  // namespace

void lesson_simplified_attention(const LessonOptions& opt, LessonOut& lout) {
  // The book's sentence, or with --T --d-in --seed a random one (see book_inputs).
  int T = 0, C = 0;
  std::string sentence;
  const std::vector<float> input_store = book_inputs(opt, T, C, sentence);
  const float* inputs = input_store.data();  // (T, C)
  const bool journey = journey_inputs(opt);
  step(lout, "Attention scores for one query");
  if (journey) {
    say(lout,
        "The 2nd token, \"journey\" (x^2), is the query; its score with every token is a dot "
        "product.");
  } else {
    say(lout, sentence);
    show(lout, "inputs:", inputs, {T, C});
    say(lout, "The 2nd token (x^2) is the query; its score with every token is a dot product.");
  }
  const float* query = inputs + 1 * C;  // (C)
  std::vector<float> attn_scores_2(T);  // (T)
  for (int i = 0; i < T; ++i) {
    float dot = 0;
    for (int c = 0; c < C; ++c) dot += inputs[i * C + c] * query[c];
    attn_scores_2[i] = dot;
  }
  show(lout, "attn_scores_2:", attn_scores_2.data(), {T});
  label_keys(lout, T, journey);

  step(lout, "Normalising the scores into weights");
  say(lout, "Dividing by the sum makes them sum to one ...");
  const float total = torch_sum(attn_scores_2.data(), T);
  std::vector<float> w_tmp(T), exps(T), w_naive(T), w(T);  // (T) each
  for (int i = 0; i < T; ++i) w_tmp[i] = attn_scores_2[i] / total;
  show(lout, "Attention weights:", w_tmp.data(), {T});
  label_keys(lout, T, journey);
  show_scalar(lout, "Sum:", torch_sum(w_tmp.data(), T));
  say(lout, "... but softmax is better behaved: exp(x) / exp(x).sum() (naive) ...");
  for (int i = 0; i < T; ++i) exps[i] = std::exp(attn_scores_2[i]);
  const float exp_sum = torch_sum(exps.data(), T);
  for (int i = 0; i < T; ++i) w_naive[i] = exps[i] / exp_sum;
  show(lout, "Attention weights:", w_naive.data(), {T});
  label_keys(lout, T, journey);
  show_scalar(lout, "Sum:", torch_sum(w_naive.data(), T));
  say(lout, "... and torch.softmax subtracts the maximum first, so large scores cannot overflow.");
  ref::softmax_forward(w.data(), attn_scores_2.data(), 1, T);
  show(lout, "Attention weights:", w.data(), {T});
  label_keys(lout, T, journey);
  show_scalar(lout, "Sum:", torch_sum(w.data(), T));

  step(lout, "The context vector z^(2)");
  say(lout, "The weighted sum of all inputs: context_vec_2 += attn_weights_2[i] * x_i.");
  say(lout,
      "Here each input plays three parts at once: it is compared with the query (as a key), "
      "and it is what gets summed (as a value). The next lesson gives the query, the key and "
      "the value a weight matrix each, so what a token is matched on and what it passes on "
      "can differ.");
  std::vector<float> context_vec_2(C, 0.0f);  // (C)
  for (int i = 0; i < T; ++i)
    for (int c = 0; c < C; ++c) context_vec_2[c] += w[i] * inputs[i * C + c];
  show(lout, "context_vec_2:", context_vec_2.data(), {C});

  step(lout, "All queries at once");
  say(lout, "Every token as the query: two for-loops, or simply inputs @ inputs.T.");
  std::vector<float> loops(int64_t{T} * T);  // (T, T)
  for (int i = 0; i < T; ++i)
    for (int j = 0; j < T; ++j) {
      float dot = 0;
      for (int c = 0; c < C; ++c) dot += inputs[i * C + c] * inputs[j * C + c];
      loops[i * T + j] = dot;
    }
  show(lout, "attn_scores (loops):", loops.data(), {T, T});
  label_scores(lout, T, journey);
  stones::SimplifiedAttention<float> attention;
  std::vector<float> all_context_vecs(int64_t{T} * C);  // (T, C)
  attention.forward(all_context_vecs.data(), inputs, T, C);
  show(lout, "attn_scores (inputs @ inputs.T):", attention.scores.data(), {T, T});
  label_scores(lout, T, journey);
  show(lout, "attn_weights:", attention.weights.data(), {T, T});
  label_scores(lout, T, journey);
  std::vector<float> row_sums(T);
  for (int i = 0; i < T; ++i) row_sums[i] = torch_sum(attention.weights.data() + i * T, T);
  show(lout, "All row sums:", row_sums.data(), {T});
  say(lout, "all_context_vecs = attn_weights @ inputs; its 2nd row is z^(2) from before.");
  show(lout, "all_context_vecs:", all_context_vecs.data(), {T, C});
  show(lout, "Previous 2nd context vector:", context_vec_2.data(), {C});
}

}  // namespace scratchgpt::lessons
