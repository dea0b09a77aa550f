// head.cpp: `scratchgpt lesson head`, the lecture's "version 4: self-attention": one Head with
// key, query and value Linear layers, the tril mask, softmax, and why scores are scaled by
// head_size**-0.5. PyTorch twin: lesson_head in tools/lesson_fixtures/lecture.py.
// Module: stones::Head (src/stones/head.h).

#include "stones/head.h"

#include <algorithm>
#include <iostream>
#include <limits>
#include <string>
#include <vector>

#include "core/check.h"
#include "core/rng.h"
#include "kernels/ref/softmax.h"
#include "lessons/lesson.h"
#include "lessons/trace_page.h"

namespace scratchgpt::lessons {

namespace {
// torch.var (unbiased), accumulated in double as PyTorch's Welford reduction does.
float variance(const std::vector<float>& v) {
  double mean = 0;
  for (float x : v) mean += x;
  mean /= static_cast<double>(v.size());
  double ss = 0;
  for (float x : v) ss += (x - mean) * (x - mean);
  return static_cast<float>(ss / static_cast<double>(v.size() - 1));
}

// --order: the creation order of the three layers, "key,query,value" (the lecture's Head) or
// any permutation (seed 001's snippet: "query,key,value"); fails naming --order otherwise.
std::vector<std::string> layer_order(const std::string& order) {
  std::vector<std::string> names;
  std::string cur;
  for (char ch : order + ",") {
    if (ch != ',') {
      cur += ch;
      continue;
    }
    names.push_back(cur);
    cur.clear();
  }
  std::vector<std::string> sorted = names;
  std::sort(sorted.begin(), sorted.end());
  if (sorted != std::vector<std::string>{"key", "query", "value"})
    fail("--order must name key, query and value once each, e.g. query,key,value; got '", order,
         "'");
  return names;
}

// The lecture's notes on attention, in our words.
void attention_notes(LessonOut& lout) {
  step(lout, "Notes on attention");
  say(lout,
      "Attention is a way of communicating: picture the T tokens as the nodes of a directed "
      "graph; every node collects a weighted sum of the values of the nodes that point to it, "
      "with weights computed from the data. With the tril mask, node t hears nodes 0..t: itself "
      "and its past.");
  say(lout,
      "Attention has no notion of space: it works on a set of vectors and would give the same "
      "answer for the past tokens in any order. That is why tokens are given position "
      "embeddings first (lesson positional).");
  say(lout,
      "The sequences of a batch never talk to each other: wei has one (T, T) matrix per batch "
      "element, and the batched matmul keeps them apart.");
  say(lout,
      "Masking the future makes this a decoder block, as language modelling needs: a token may "
      "not see what it must predict. An encoder block (for, say, classifying a whole sentence) "
      "leaves the mask out, so every token hears every other.");
  say(lout,
      "This is self-attention: queries, keys and values all come from the same x. In "
      "cross-attention the queries come from x while the keys and values come from somewhere "
      "else, such as an encoder's output that the tokens consult.");
}

}  // namespace

void lesson_head(const LessonOptions& opt, LessonOut& lout) {
  // The lecture's sizes and seed unless --B --T --C --head-size --seed say otherwise.
  const int B = opt.B.value_or(4), T = opt.T.value_or(8), C = opt.C.value_or(32);
  const int HS = opt.head_size.value_or(16);
  const uint64_t seed = opt.seed.value_or(1337);
  check_elements(int64_t{B} * T * (C + 6 * HS) + int64_t{B} * T * T * 3 + int64_t{C} * HS * 3,
                 "--B, --T, --C, --head-size");
  const std::string c = std::to_string(C), hs = std::to_string(HS);
  // The draws first (x, then key, query, value), so that an unwritable --html fails before any
  // output; the sentences draw nothing.
  Rng rng;
  rng.manual_seed(seed);
  std::vector<float> x(int64_t{B} * T * C);  // (B, T, C)
  rng.randn(x.data(), static_cast<int64_t>(x.size()));
  stones::Head<float> head(C, HS, T, 0.0f);
  const std::vector<std::string> order =
      layer_order(opt.order.empty() ? "key,query,value" : opt.order);
  for (const std::string& name : order)  // nn.Linear's draws, in creation order
    (name == "key" ? head.key : name == "query" ? head.query : head.value).init(rng);
  std::vector<TraceMatrix> trace;
  if (opt.trace || !opt.html.empty())
    trace = trace_head(head, x, B, T, C, "x = torch.randn(B, T, C)", token_labels(T, false));
  if (!opt.html.empty()) {
    write_trace_page(
        opt.html, opt.overwrite, "One self-attention Head, traced (scratchgpt lesson head)",
        "torch.manual_seed(" + seed_text(seed) + "); x = torch.randn(" + std::to_string(B) + ", " +
            std::to_string(T) + ", " + c + "); key, query, value = nn.Linear(" + c + ", " + hs +
            ", bias=False). Batch element 0, every intermediate in order.",
        kHeadTraceCode, trace);
    std::cerr << "wrote " << opt.html << "\n";
  }
  step(lout, "A single Head");
  say(lout, "torch.manual_seed(" + seed_text(seed) + "); x = torch.randn(" + std::to_string(B) +
                ", " + std::to_string(T) + ", " + c + "); " + order[0] + ", " + order[1] + ", " +
                order[2] + " = nn.Linear(" + c + ", " + hs +
                ", bias=False), created in that order.");
  if (order[0] != "key" || order[1] != "query")
    say(lout,
        "The lecture's Head creates key, query, value; in another order the same seed gives "
        "the layers other weights, so the numbers differ (each nn.Linear takes the next numbers "
        "of the generator).");
  say(lout,
      "Every token emits a query (what am I looking for?) and a key (what do I contain?); "
      "wei = q @ k.transpose(-2, -1) makes the affinities data-dependent.");
  say(lout,
      "And a value: x is what a token privately knows, v = value(x) is what it tells the tokens "
      "that find it interesting (those whose query matches its key); out = wei @ v adds up what "
      "each token hears.");
  say(lout,
      "Picture a classroom: every pupil has notes of their own (x), a label on their desk "
      "saying what they know about (the key), a question they want answered (the query), and "
      "a summary they are willing to share (the value). Each pupil listens most to the desks "
      "whose label fits their question, and takes home a mix of those summaries.");
  std::vector<float> out(int64_t{B} * T * HS);  // (B, T, HS)
  if (opt.trace) {
    step(lout, "Trace: one Head on batch element 0");
    say(lout, kHeadTraceCode);
    say(lout, trace_axes_sentence("wei", "key.weight, query.weight and value.weight",
                                  "(head_size, C)", "k = x @ key.weight.T"));
    print_trace(lout, trace);
    return;
  }
  say(lout,
      "The lecture's first version has no scaling: wei = q @ k^T, tril mask, softmax, "
      "out = wei @ v.");
  head.scaled = false;
  head.forward(out.data(), x.data(), B, T);
  show_size(lout, "out.shape:", {B, T, HS});
  show(lout, "wei[0] (unscaled):", head.wei.data(), {T, T});
  label_scores(lout, T, false);

  step(lout, "Scaled attention");
  say(lout,
      "wei = q @ k^T * head_size**-0.5 keeps the variance of wei near 1, so softmax stays "
      "diffuse at initialisation instead of converging to one-hot vectors.");
  head.scaled = true;
  head.forward(out.data(), x.data(), B, T);
  show(lout, "wei[0] (scaled):", head.wei.data(), {T, T});
  label_scores(lout, T, false);
  say(lout,
      "Note: the lecture prints all of out[0]; here only the first four numbers of its first "
      "row. Some entries of out[0] are sums that nearly cancel, which PyTorch prints in "
      "scientific notation, where the order of the additions (one BLAS or another) shows in the "
      "5th digit.");
  show(lout, "out[0, 0, :4]:", out.data(), {std::min(HS, 4)});

  step(lout, "Why scale: the variance of the scores");
  say(lout,
      "k = torch.randn(B, T, head_size); q = torch.randn(B, T, head_size); "
      "wei = q @ k^T * head_size**-0.5 has variance ~1 (without the scale it would be ~" +
          hs + ").");
  std::vector<float> k(int64_t{B} * T * HS), q(k.size()), wei(int64_t{B} * T * T);
  // (B,T,HS) x2, (B,T,T)
  rng.randn(k.data(), static_cast<int64_t>(k.size()));
  rng.randn(q.data(), static_cast<int64_t>(q.size()));
  for (int b = 0; b < B; ++b)
    for (int t = 0; t < T; ++t)
      for (int s = 0; s < T; ++s) {
        float dot = 0;
        for (int i = 0; i < HS; ++i)
          dot += q[(int64_t{b} * T + t) * HS + i] * k[(int64_t{b} * T + s) * HS + i];
        wei[(int64_t{b} * T + t) * T + s] =
            stones::apply_scale(dot, stones::Scale::kMultiplyInvSqrt, HS);
      }
  show_scalar(lout, "k.var():", variance(k));
  show_scalar(lout, "q.var():", variance(q));
  show_scalar(lout, "wei.var():", variance(wei));
  say(lout, "softmax of large values sharpens towards the maximum:");
  const float v[5] = {0.1f, -0.2f, 0.3f, -0.2f, 0.5f};
  float v8[5], p[5];
  ref::softmax_forward(p, v, 1, 5);
  show(lout, "softmax:", p, {5});
  for (int i = 0; i < 5; ++i) v8[i] = v[i] * 8;
  ref::softmax_forward(p, v8, 1, 5);
  show(lout, "softmax(8x):", p, {5});
  attention_notes(lout);
}

}  // namespace scratchgpt::lessons
