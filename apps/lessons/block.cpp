// block.cpp: `scratchgpt lesson block`, the lecture's transformer Block (pre-layernorm,
// residual connections): x = x + sa(ln1(x)); x = x + ffwd(ln2(x)), shown step by step.
// Built from the lecture's modules (stones::LectureMultiHeadAttention, stones::FeedForward) so
// the seeded weights are drawn in the lecture's order. PyTorch twin: lesson_block in
// tools/lesson_fixtures/lecture.py. Engine twin: src/nn/block.h.

#include "nn/block.h"

#include <iostream>
#include <vector>

#include "core/arena.h"
#include "core/check.h"
#include "core/rng.h"
#include "kernels/ref/layernorm.h"
#include "lessons/lesson.h"
#include "lessons/trace_page.h"
#include "stones/feed_forward.h"
#include "stones/multi_head_attention.h"

namespace scratchgpt::lessons {

namespace {

template <typename Vec>
void put(float* dst, const Vec& src) {
  std::copy(src.begin(), src.end(), dst);
}
}  // namespace

void lesson_block(const LessonOptions& opt, LessonOut& lout) {
  // The lecture's sizes and seed unless --B --T --C --n-head (or --head-size) --block-size --seed
  // say otherwise; as gpt.py's Block, head_size = n_embd // n_head.
  const int B = opt.B.value_or(2), T = opt.T.value_or(4), n_embd = opt.C.value_or(8), C = n_embd;
  const int block_size = opt.block_size.value_or(8);
  const uint64_t seed = opt.seed.value_or(1337);
  int n_head = opt.n_head.value_or(2);
  if (opt.head_size && !opt.n_head) {
    if (n_embd % *opt.head_size != 0)
      fail("--head-size ", *opt.head_size, " does not divide --C ", n_embd,
           " (Block: n_head = n_embd / head_size)");
    n_head = n_embd / *opt.head_size;
  }
  if (n_embd % n_head != 0)
    fail("--C ", n_embd, " is not divisible by --n-head ", n_head,
         " (Block: head_size = n_embd // n_head)");
  const int head_size = n_embd / n_head;
  if (opt.head_size && *opt.head_size != head_size)
    fail("--head-size ", *opt.head_size, " is not --C / --n-head = ", head_size);
  if (T > block_size)
    fail("--T ", T, " exceeds the block size ", block_size,
         " (the heads' tril buffer is block_size x block_size; raise --block-size)");
  check_elements(int64_t{B} * T * C * 12 + int64_t{C} * C * 12 + int64_t{block_size} * block_size,
                 "--B, --T, --C, --block-size");
  const std::string c = std::to_string(C), c4 = std::to_string(4 * C);
  // The draws first (sa, ffwd, then x), so that an unwritable --html fails before any output.
  Rng rng;
  rng.manual_seed(seed);
  stones::LectureMultiHeadAttention<float> sa(n_embd, n_head, head_size, block_size, 0.0f);
  sa.init(rng);
  stones::FeedForward<float> ffwd(n_embd, 0.0f);
  ffwd.init(rng);
  std::vector<float> ln_w(C, 1.0f), ln_b(C, 0.0f);  // nn.LayerNorm starts at weight 1, bias 0
  std::vector<float> x(int64_t{B} * T * C);         // (B, T, C)
  rng.randn(x.data(), static_cast<int64_t>(x.size()));
  const int N = B * T;
  std::vector<float> h(N * C), mean(N), rstd(N), a(N * C), x1(N * C), f(N * C), out(N * C);
  std::vector<TraceMatrix> trace;  // --trace, --html: the first head of sa on ln1(x)
  if (opt.trace || !opt.html.empty()) {
    ref::layernorm_forward(h.data(), mean.data(), rstd.data(), x.data(), ln_w.data(), ln_b.data(),
                           N, C);
    trace = trace_head(sa.heads[0], h, B, T, C, "x = ln1(x): the input of sa.heads[0]",
                       token_labels(T, false));
  }
  if (!opt.html.empty()) {
    write_trace_page(opt.html, opt.overwrite,
                     "The first Head of a Block, traced (scratchgpt lesson block)",
                     "torch.manual_seed(" + seed_text(seed) + "); block = Block(n_embd=" + c +
                         ", n_head=" + std::to_string(n_head) + "); x = torch.randn(" +
                         std::to_string(B) + ", " + std::to_string(T) + ", " + c +
                         "). block.sa.heads[0] on ln1(x), batch element 0, every intermediate.",
                     kHeadTraceCode, trace);
    std::cerr << "wrote " << opt.html << "\n";
  }
  step(lout, "A Block");
  say(lout, "torch.manual_seed(" + seed_text(seed) + "); block = Block(n_embd=" + c +
                ", n_head=" + std::to_string(n_head) + "): sa = MultiHeadAttention(" +
                std::to_string(n_head) + " heads of " + std::to_string(head_size) +
                "), ffwd = FeedForward (" + c + " -> " + c4 + " -> " + c +
                " with ReLU), ln1, ln2 = nn.LayerNorm(" + c + "). Then x = torch.randn(" +
                std::to_string(B) + ", " + std::to_string(T) + ", " + c + ").");
  if (opt.trace) {  // its x is the head's input, ln1(x)
    step(lout, "Trace: sa.heads[0] on ln1(x), batch element 0");
    say(lout, kHeadTraceCode);
    say(lout, trace_axes_sentence("wei",
                                  "key.weight, query.weight and value.weight (of "
                                  "sa.heads[0])",
                                  "(head_size, n_embd)", "k = x @ key.weight.T"));
    print_trace(lout, trace);
    return;
  }
  show(lout, "x[0]:", x.data(), {T, C});

  step(lout, "Communication: x + sa(ln1(x))");
  say(lout, "Pre-norm: each token's features are normalised to mean 0, variance 1 first.");
  ref::layernorm_forward(h.data(), mean.data(), rstd.data(), x.data(), ln_w.data(), ln_b.data(), N,
                         C);
  show(lout, "ln1(x)[0]:", h.data(), {T, C});
  say(lout,
      "The heads let tokens exchange information (causally); the projection mixes the heads.");
  sa.forward(a.data(), h.data(), B, T);
  show(lout, "sa(ln1(x))[0]:", a.data(), {T, C});
  say(lout, "The residual connection adds it to x: gradients flow straight through the sum.");
  for (int i = 0; i < N * C; ++i) x1[i] = x[i] + a[i];
  show(lout, "x + sa(ln1(x)) [0]:", x1.data(), {T, C});

  step(lout, "Computation: x + ffwd(ln2(x))");
  say(lout, "Each token then thinks on its own: Linear(" + c + ", " + c4 + "), ReLU, Linear(" + c4 +
                ", " + c + ").");
  ref::layernorm_forward(h.data(), mean.data(), rstd.data(), x1.data(), ln_w.data(), ln_b.data(), N,
                         C);
  ffwd.forward(f.data(), h.data(), N);
  show(lout, "ffwd(ln2(x))[0]:", f.data(), {T, C});
  for (int i = 0; i < N * C; ++i) out[i] = x1[i] + f[i];
  show(lout, "out[0]:", out.data(), {T, C});
  show_size(lout, "out.shape:", {B, T, C});

  step(lout, "The same Block in the engine");
  say(lout,
      "src/nn/block.h is nanoGPT's Block: one fused c_attn Linear(C, 3C) makes q, k and v "
      "for all heads. Copying the heads' key/query/value rows into it (and proj, the "
      "feed-forward and the layer norms) gives the same output.");
  GPTConfig config;
  config.n_embd = n_embd;
  config.n_head = n_head;
  config.block_size = block_size;
  config.dropout = 0.0f;
  config.bias = true;
  config.activation = Activation::kRelu;
  Block engine(config);
  ParamStore params;  // the engine Block's parameters in storage of their own (a GPT: its slab)
  params.build([&](ParamVisitor& v) { engine.visit_params("block", v); });
  SlabPlanner count_acts, count_scratch;
  engine.plan(count_acts, count_scratch, B, T);
  Arena acts(count_acts.used()), scratch(count_scratch.used());
  SlabPlanner plan_acts(acts.base(), 0), plan_scratch(scratch.base(), 0);
  engine.plan(plan_acts, plan_scratch, B, T);
  for (const char* ln : {"block.ln_1", "block.ln_2"}) {
    put(params.get(std::string(ln) + ".weight").value.data, ln_w);
    put(params.get(std::string(ln) + ".bias").value.data, ln_b);
  }
  float* c_attn =
      params.get("block.attn.c_attn.weight").value.data;  // (3C, C): q rows, k rows, v rows
  for (int hd = 0; hd < n_head; ++hd) {
    put(c_attn + (0 * C + hd * head_size) * C, sa.heads[hd].query.weight);
    put(c_attn + (1 * C + hd * head_size) * C, sa.heads[hd].key.weight);
    put(c_attn + (2 * C + hd * head_size) * C, sa.heads[hd].value.weight);
  }  // the lecture's heads have no bias: c_attn.bias stays 0
  put(params.get("block.attn.c_proj.weight").value.data, sa.proj.weight);
  put(params.get("block.attn.c_proj.bias").value.data, sa.proj.bias);
  put(params.get("block.mlp.c_fc.weight").value.data, ffwd.fc1.weight);
  put(params.get("block.mlp.c_fc.bias").value.data, ffwd.fc1.bias);
  put(params.get("block.mlp.c_proj.weight").value.data, ffwd.fc2.weight);
  put(params.get("block.mlp.c_proj.bias").value.data, ffwd.fc2.bias);
  const float* y = engine.forward(ExecContext(), x.data(), B, T, nullptr);  // (B, T, C)
  show(lout, "engine Block(x)[0]:", y, {T, C});
}

}  // namespace scratchgpt::lessons
