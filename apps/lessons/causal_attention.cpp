// causal_attention.cpp: `scratchgpt lesson causal-attention`, Raschka ch. 3.5: hiding future
// tokens (zero-and-renormalise, then the -inf mask), dropout on attention weights, and the
// CausalAttention class on a batch. PyTorch twin: lesson_causal_attention in
// tools/lesson_fixtures/book.py. Module: stones::CausalAttention (src/stones/causal_attention.h).

#include "stones/causal_attention.h"

#include <iostream>
#include <limits>
#include <string>
#include <vector>

#include "core/rng.h"
#include "kernels/ref/softmax.h"
#include "lessons/lesson.h"
#include "lessons/trace_page.h"
#include "stones/self_attention.h"

namespace scratchgpt::lessons {

namespace {

// Why rows of the dropped causal weights can vanish, which ones did, the 1 / (1 - p) rescaling,
// and why a copy of the book may show another pattern.
void explain_dropout(LessonOut& lout, const std::vector<float>& dropped,
                     const std::vector<float>& mask, int T) {
  say(lout,
      "Each entry is dropped on its own, with probability 0.5; the kept ones are multiplied by "
      "1 / (1 - 0.5) = 2, so a row no longer sums to one, but its expected sum still does (row "
      "0's single weight 1 becomes 2 or 0).");
  for (int t = 0; t < T; ++t) {
    bool zero = true;
    for (int s = 0; s < T; ++s) zero = zero && dropped[int64_t{t} * T + s] == 0.0f;
    if (!zero) continue;
    std::string kept;
    for (int s = t + 1; s < T; ++s)
      if (mask[int64_t{t} * T + s] != 0.0f) kept += (kept.empty() ? "" : ", ") + std::to_string(s);
    say(lout, "Row " + std::to_string(t) +
                  " is all zeros: the causal mask had left only its first " +
                  std::to_string(t + 1) + " weights (columns 0.." + std::to_string(t) +
                  ") non-zero, and dropout happened to drop each of them" +
                  (kept.empty() ? std::string(".")
                                : "; it kept column(s) " + kept + ", which the mask had zeroed.") +
                  " In this training step that token's context vector is zero.");
  }
  say(lout,
      "Note: if your copy of the book prints another pattern of zeros, its PyTorch drew the "
      "dropout noise differently (builds differ here, e.g. with MKL); these are the draws of "
      "Debian's PyTorch 1.13, which the tests compare.");
}

}  // namespace

void lesson_causal_attention(const LessonOptions& opt, LessonOut& lout) {
  // The book's sentence, or with --T --d-in --seed a random one (see book_inputs); --d-out.
  // The weights and dropout keep the book's seeds (789, 123).
  int T = 0, d_in = 0;
  std::string sentence;
  const std::vector<float> input_store = book_inputs(opt, T, d_in, sentence);
  const int d_out = opt.d_out.value_or(2);
  check_elements(int64_t{d_in} * d_out * 6 + int64_t{T} * T * 12 + int64_t{T} * d_in * 4,
                 "--T, --d-in, --d-out");
  const float* inputs = input_store.data();  // (T, d_in)
  Rng rng;
  std::vector<TraceMatrix> trace;  // --trace, --html: the CausalAttention of the last step
  if (opt.trace || !opt.html.empty()) {
    std::vector<float> batch(int64_t{2} * T * d_in);  // torch.stack((inputs, inputs))
    std::copy(inputs, inputs + int64_t{T} * d_in, batch.begin());
    std::copy(inputs, inputs + int64_t{T} * d_in, batch.begin() + int64_t{T} * d_in);
    rng.manual_seed(123);
    stones::CausalAttention<float> ca(d_in, d_out, T, 0.0f);
    ca.init(rng);
    trace = trace_causal_attention(ca, batch, 2, T, token_labels(T, journey_inputs(opt)));
  }
  if (!opt.html.empty()) {
    write_trace_page(
        opt.html, opt.overwrite, "CausalAttention, traced (scratchgpt lesson causal-attention)",
        "batch = torch.stack((inputs, inputs)); torch.manual_seed(123); ca = "
        "CausalAttention(d_in=" +
            std::to_string(d_in) + ", d_out=" + std::to_string(d_out) + ", context_length=" +
            std::to_string(T) + ", dropout=0.0); batch element 0, every intermediate in order.",
        kCausalAttentionTraceCode, trace);
    std::cerr << "wrote " << opt.html << "\n";
  }
  if (!journey_inputs(opt)) {
    step(lout, "The inputs");
    say(lout, sentence);
    show(lout, "inputs:", inputs, {T, d_in});
  }
  if (opt.trace) {
    step(lout, "Trace: CausalAttention on batch element 0");
    say(lout,
        "batch = torch.stack((inputs, inputs)); torch.manual_seed(123); ca = "
        "CausalAttention(d_in, d_out, context_length=T, dropout=0.0); ca(batch):");
    say(lout, kCausalAttentionTraceCode);
    say(lout, trace_axes_sentence("attn_scores", "W_query.weight, W_key.weight and W_value.weight",
                                  "(d_out, d_in)", "keys = x @ W_key.weight.T"));
    print_trace(lout, trace);
    return;
  }
  step(lout, "Attention weights of SelfAttention_v2");
  say(lout,
      "torch.manual_seed(789); sa_v2 = SelfAttention_v2(d_in, d_out); every token still sees "
      "every other token, including later ones.");
  rng.manual_seed(789);
  stones::SelfAttentionV2<float> sa_v2(d_in, d_out);
  sa_v2.init(rng);
  std::vector<float> ctx(int64_t{T} * d_out);  // (T, d_out)
  sa_v2.forward(ctx.data(), inputs, T);
  const std::vector<float>& attn_scores = sa_v2.scores;  // (T, T) queries @ keys.T
  show(lout, "attn_weights:", sa_v2.weights.data(), {T, T});
  label_scores(lout, T, journey_inputs(opt));

  step(lout, "Masking, first attempt: zero the future, renormalise");
  std::vector<float> mask_simple(T * T), masked_simple(T * T), norm(T * T);  // (T, T)
  for (int i = 0; i < T; ++i)
    for (int j = 0; j < T; ++j) mask_simple[i * T + j] = j <= i ? 1.0f : 0.0f;
  show(lout, "mask_simple:", mask_simple.data(), {T, T});
  label_scores(lout, T, journey_inputs(opt));
  for (int i = 0; i < T * T; ++i) masked_simple[i] = sa_v2.weights[i] * mask_simple[i];
  show(lout, "masked_simple:", masked_simple.data(), {T, T});
  label_scores(lout, T, journey_inputs(opt));
  say(lout, "Dividing each row by its sum makes the rows sum to one again.");
  for (int i = 0; i < T; ++i) {
    float row_sum = 0;
    for (int j = 0; j < T; ++j) row_sum += masked_simple[i * T + j];
    for (int j = 0; j < T; ++j) norm[i * T + j] = masked_simple[i * T + j] / row_sum;
  }
  show(lout, "masked_simple_norm:", norm.data(), {T, T});
  label_scores(lout, T, journey_inputs(opt));

  step(lout, "Masking, the efficient way: -inf before softmax");
  say(lout,
      "masked = attn_scores.masked_fill(triu(ones, diagonal=1).bool(), -inf); softmax turns "
      "-inf into exact zeros, and the result equals the renormalised weights.");
  std::vector<float> masked(T * T), scaled(T * T), weights(T * T);  // (T, T)
  for (int i = 0; i < T; ++i)
    for (int j = 0; j < T; ++j)
      masked[i * T + j] = j > i ? -std::numeric_limits<float>::infinity() : attn_scores[i * T + j];
  show(lout, "masked:", masked.data(), {T, T});
  label_scores(lout, T, journey_inputs(opt));
  for (int i = 0; i < T * T; ++i)
    scaled[i] = stones::apply_scale(masked[i], stones::Scale::kDivideSqrt, d_out);
  ref::softmax_forward(weights.data(), scaled.data(), T, T);
  show(lout, "attn_weights:", weights.data(), {T, T});
  label_scores(lout, T, journey_inputs(opt));

  step(lout, "Dropout on the attention weights");
  say(lout,
      "torch.manual_seed(123); nn.Dropout(0.5) zeroes about half of the entries in training "
      "and scales the rest by 1 / (1 - 0.5) = 2.");
  rng.manual_seed(123);
  std::vector<float> mask = stones::draw_dropout_mask<float>(&rng, T * T, 0.5f);  // (T, T)
  show(lout, "dropout(example):", mask.data(), {T, T});  // torch.ones(T, T) * mask
  say(lout, "Reseeding with 123 drops the same positions of the attention weights.");
  rng.manual_seed(123);
  mask = stones::draw_dropout_mask<float>(&rng, T * T, 0.5f);
  std::vector<float> dropped(T * T);
  for (int i = 0; i < T * T; ++i) dropped[i] = weights[i] * mask[i];
  show(lout, "dropout(attn_weights):", dropped.data(), {T, T});
  explain_dropout(lout, dropped, mask, T);

  step(lout, "The CausalAttention class on a batch");
  say(lout,
      "batch = torch.stack((inputs, inputs)); torch.manual_seed(123); "
      "ca = CausalAttention(d_in, d_out, context_length=" +
          std::to_string(T) + ", dropout=0.0).");
  const int B = 2;
  std::vector<float> batch(int64_t{B} * T * d_in);  // (B, T, d_in)
  for (int b = 0; b < B; ++b) std::copy(inputs, inputs + T * d_in, batch.begin() + b * T * d_in);
  show_size(lout, "batch.shape:", {B, T, d_in});
  rng.manual_seed(123);
  stones::CausalAttention<float> ca(d_in, d_out, T, 0.0f);
  ca.init(rng);
  std::vector<float> context_vecs(int64_t{B} * T * d_out);  // (B, T, d_out)
  ca.forward(context_vecs.data(), batch.data(), B, T, &rng);
  show(lout, "context_vecs:", context_vecs.data(), {B, T, d_out});
  show_size(lout, "context_vecs.shape:", {B, T, d_out});
}

}  // namespace scratchgpt::lessons
