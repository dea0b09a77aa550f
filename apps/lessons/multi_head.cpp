// multi_head.cpp: `scratchgpt lesson multi-head`, Raschka ch. 3.6: several causal heads stacked
// (MultiHeadAttentionWrapper) and the efficient MultiHeadAttention that splits one projection.
// PyTorch twin: lesson_multi_head in tools/lesson_fixtures/book.py.
// Modules: src/stones/multi_head_attention.h.

#include <iostream>
#include <string>
#include <vector>

#include "core/check.h"
#include "core/rng.h"
#include "lessons/lesson.h"
#include "lessons/trace_page.h"
#include "stones/multi_head_attention.h"

namespace scratchgpt::lessons {

void lesson_multi_head(const LessonOptions& opt, LessonOut& lout) {
  // The book's sentence, or with --T --d-in --seed a random one (see book_inputs); --d-out and
  // --n-head (num_heads) for both modules. The weights keep the book's seed, 123.
  int T = 0, d_in = 0;
  std::string sentence;
  const std::vector<float> inputs = book_inputs(opt, T, d_in, sentence);
  const int B = 2, d_out = opt.d_out.value_or(2), num_heads = opt.n_head.value_or(2);
  if (d_out % num_heads != 0)
    fail("--d-out ", d_out, " is not divisible by --n-head ", num_heads,
         " (MultiHeadAttention: head_dim = d_out // num_heads)");
  check_elements(int64_t{B} * T * d_out * num_heads * 6 + int64_t{d_in} * d_out * num_heads * 6 +
                     int64_t{B} * num_heads * T * T * 4,
                 "--T, --d-in, --d-out, --n-head");
  std::vector<float> batch(int64_t{B} * T * d_in);  // (B, T, d_in) = torch.stack((inputs, inputs))
  for (int b = 0; b < B; ++b)
    std::copy(inputs.begin(), inputs.end(), batch.begin() + int64_t{b} * T * d_in);
  const std::string din = std::to_string(d_in), dout = std::to_string(d_out),
                    nh = std::to_string(num_heads), t = std::to_string(T);
  Rng rng;
  std::vector<TraceMatrix> trace;  // --trace, --html: the last step's MultiHeadAttention
  if (opt.trace || !opt.html.empty()) {
    rng.manual_seed(123);
    stones::MultiHeadAttention<float> mha(d_in, d_out, T, 0.0f, num_heads);
    mha.init(rng);
    trace = trace_multi_head_attention(mha, batch, B, T, token_labels(T, journey_inputs(opt)));
  }
  if (!opt.html.empty()) {
    write_trace_page(
        opt.html, opt.overwrite, "MultiHeadAttention, traced (scratchgpt lesson multi-head)",
        "batch = torch.stack((inputs, inputs)); torch.manual_seed(123); mha = "
        "MultiHeadAttention(d_in=" +
            din + ", d_out=" + dout + ", context_length=" + t + ", dropout=0.0, num_heads=" + nh +
            "); batch element 0: every head after the split, head 0's scores in full, the "
            "concatenation.",
        kMultiHeadTraceCode, trace);
    std::cerr << "wrote " << opt.html << "\n";
  }
  if (!journey_inputs(opt)) {
    step(lout, "The inputs");
    say(lout, sentence);
    show(lout, "inputs:", inputs.data(), {T, d_in});
  }
  if (opt.trace) {
    step(lout, "Trace: MultiHeadAttention on batch element 0, every head");
    say(lout,
        "batch = torch.stack((inputs, inputs)); torch.manual_seed(123); mha = "
        "MultiHeadAttention(d_in, d_out, context_length=T, dropout=0.0, num_heads); "
        "mha(batch):");
    say(lout, kMultiHeadTraceCode);
    say(lout, trace_axes_sentence("attn_scores",
                                  "W_query.weight, W_key.weight, W_value.weight "
                                  "and out_proj.weight",
                                  "(d_out, d_in) and (d_out, d_out)", "keys = x @ W_key.weight.T"));
    say(lout,
        "Each head is a slice of head_dim = d_out / num_heads columns of keys, queries and "
        "values (the split); each head attends on its own, and their outputs are put side by "
        "side again (the concatenation) before out_proj mixes them.");
    print_trace(lout, trace);
    return;
  }
  step(lout, "Stacking causal heads");
  say(lout, "torch.manual_seed(123); MultiHeadAttentionWrapper(d_in=" + din + ", d_out=" + dout +
                ", context_length=" + t + ", dropout=0.0, num_heads=" + nh + ") runs " +
                (num_heads == 2 ? std::string("two") : nh) +
                " CausalAttention heads and concatenates them: " + nh + " heads x " + dout +
                " dims = " + std::to_string(num_heads * d_out) + " output dims.");
  rng.manual_seed(123);
  stones::MultiHeadAttentionWrapper<float> wrapper(d_in, d_out, T, 0.0f, num_heads);
  wrapper.init(rng);
  const int wide = num_heads * d_out;
  std::vector<float> out(int64_t{B} * T * wide);  // (B, T, num_heads * d_out)
  wrapper.forward(out.data(), batch.data(), B, T, &rng);
  show(lout, "context_vecs:", out.data(), {B, T, wide});
  show_size(lout, "context_vecs.shape:", {B, T, wide});

  step(lout, "Batched matrix multiplication over heads");
  say(lout,
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
  show(lout, "a @ a.transpose(2, 3):", aat, {1, 2, 3, 3});
  show(lout, "First head:", aat, {3, 3});
  show(lout, "Second head:", aat + 9, {3, 3});

  step(lout, "One projection split across heads");
  say(lout,
      "torch.manual_seed(123); MultiHeadAttention(d_in=" + din + ", d_out=" + dout +
          ", context_length=" + t + ", dropout=0.0, num_heads=" + nh +
          "): one W_query/W_key/W_value of d_out columns viewed as "
          "(B, T, num_heads, head_dim) and transposed to (B, num_heads, T, head_dim), then an "
          "output projection out_proj. head_dim = " +
          std::to_string(d_out / num_heads) + " here, and the output has d_out = " + dout +
          " dims.");
  rng.manual_seed(123);
  stones::MultiHeadAttention<float> mha(d_in, d_out, T, 0.0f, num_heads);
  mha.init(rng);
  out.assign(int64_t{B} * T * d_out, 0.0f);  // (B, T, d_out)
  mha.forward(out.data(), batch.data(), B, T, &rng);
  show(lout, "context_vecs:", out.data(), {B, T, d_out});
  show_size(lout, "context_vecs.shape:", {B, T, d_out});
}

}  // namespace scratchgpt::lessons
