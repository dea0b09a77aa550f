// trainable_weights.cpp: `scratchgpt lesson trainable-weights`, Raschka ch. 3.4: query, key and
// value projections with trainable weights, scaled dot-product attention, SelfAttention_v1/_v2.
// PyTorch twin: lesson_trainable_weights in tools/lesson_fixtures/book.py.
// Modules: stones::SelfAttentionV1 / SelfAttentionV2 (src/stones/self_attention.h).

#include <cmath>
#include <string>
#include <vector>

#include "core/rng.h"
#include "kernels/ref/softmax.h"
#include "lessons/lesson.h"
#include "stones/self_attention.h"

namespace scratchgpt::lessons {

void lesson_trainable_weights(const LessonOptions& opt, LessonOut& lout) {
  // The book's sentence, or with --T --d-in --seed a random one (see book_inputs); --d-out.
  // The weights keep the book's seeds (123 for W_query, W_key, W_value and v1, 789 for v2).
  int T = 0, d_in = 0;
  std::string sentence;
  const std::vector<float> input_store = book_inputs(opt, T, d_in, sentence);
  const int d_out = opt.d_out.value_or(2);
  check_elements(int64_t{d_in} * d_out * 6 + int64_t{T} * d_out * 4, "--d-in, --d-out");
  const float* inputs = input_store.data();  // (T, d_in)
  const float* x_2 = inputs + d_in;          // (d_in)
  Rng rng;
  if (!journey_inputs(opt)) {
    step(lout, "The inputs");
    say(lout, sentence);
    show(lout, "inputs:", inputs, {T, d_in});
  }
  step(lout, "Three weight matrices");
  say(lout,
      "torch.manual_seed(123); W_query, W_key, W_value = torch.nn.Parameter(torch.rand(d_in, "
      "d_out)) with d_in = " +
          std::to_string(d_in) + ", d_out = " + std::to_string(d_out) +
          ". They are trained later; here they are random.");
  rng.manual_seed(123);
  std::vector<float> W_query(int64_t{d_in} * d_out), W_key(W_query.size()), W_value(W_query.size());
  rng.rand(W_query.data(), d_in * d_out);
  rng.rand(W_key.data(), d_in * d_out);
  rng.rand(W_value.data(), d_in * d_out);
  show(lout, "W_query:", W_query.data(), {d_in, d_out});
  show(lout, "W_key:", W_key.data(), {d_in, d_out});
  show(lout, "W_value:", W_value.data(), {d_in, d_out});

  step(lout, "Query, keys and values");
  say(lout, "query_2 = x_2 @ W_query projects the " + std::to_string(d_in) + "-d input to a " +
                std::to_string(d_out) + "-d query; keys and values are computed for every input.");
  say(lout,
      "The key is what a token is matched on, the value what it hands over once matched: the "
      "context vector is a sum of values, never of raw inputs.");
  std::vector<float> query_2(d_out), keys(int64_t{T} * d_out), values(int64_t{T} * d_out);
  stones::mm(query_2.data(), x_2, W_query.data(), 1, d_in, d_out);
  stones::mm(keys.data(), inputs, W_key.data(), T, d_in, d_out);      // (T, d_out)
  stones::mm(values.data(), inputs, W_value.data(), T, d_in, d_out);  // (T, d_out)
  show(lout, "query_2:", query_2.data(), {d_out});
  show_size(lout, "keys.shape:", {T, d_out});
  show_size(lout, "values.shape:", {T, d_out});

  step(lout, "Scores, scaled weights, the context vector");
  say(lout, "omega_22 = query_2 . keys[1]; all scores: query_2 @ keys.T.");
  float omega_22 = 0;
  for (int i = 0; i < d_out; ++i) omega_22 += query_2[i] * keys[1 * d_out + i];
  show_scalar(lout, "attn_score_22:", omega_22);
  std::vector<float> scores(T), scaled(T), weights(T), context(d_out);  // (T), (T), (T), (d_out)
  stones::mm(scores.data(), keys.data(), query_2.data(), T, d_out, 1);  // = query_2 @ keys.T
  show(lout, "attn_scores_2:", scores.data(), {T});
  label_keys(lout, T, journey_inputs(opt));
  say(lout,
      "softmax(attn_scores_2 / d_k**0.5): dividing by sqrt(d_k) keeps the softmax from "
      "saturating when d_k is large.");
  for (int i = 0; i < T; ++i)
    scaled[i] = stones::apply_scale(scores[i], stones::Scale::kDivideSqrt, d_out);
  ref::softmax_forward(weights.data(), scaled.data(), 1, T);
  show(lout, "attn_weights_2:", weights.data(), {T});
  label_keys(lout, T, journey_inputs(opt));
  stones::mm(context.data(), weights.data(), values.data(), 1, T, d_out);
  show(lout, "context_vec_2:", context.data(), {d_out});

  step(lout, "SelfAttention_v1: the same as a module");
  say(lout,
      "torch.manual_seed(123); sa_v1 = SelfAttention_v1(d_in, d_out) draws the same three "
      "matrices, so its 2nd row is context_vec_2.");
  rng.manual_seed(123);
  stones::SelfAttentionV1<float> sa_v1(d_in, d_out);
  sa_v1.init(rng);
  std::vector<float> out(int64_t{T} * d_out);  // (T, d_out)
  sa_v1.forward(out.data(), inputs, T);
  show(lout, "SelfAttention_v1:", out.data(), {T, d_out});

  step(lout, "SelfAttention_v2: nn.Linear layers");
  say(lout,
      "torch.manual_seed(789); nn.Linear(d_in, d_out, bias=False) has a better initialisation "
      "and stores W transposed, (d_out, d_in).");
  rng.manual_seed(789);
  stones::SelfAttentionV2<float> sa_v2(d_in, d_out);
  sa_v2.init(rng);
  sa_v2.forward(out.data(), inputs, T);
  show(lout, "SelfAttention_v2:", out.data(), {T, d_out});
}

}  // namespace scratchgpt::lessons
