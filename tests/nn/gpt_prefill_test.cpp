// gpt_prefill_test.cpp: GPT::prefill (several tokens through the KV cache at once, in chunks of
// kPrefillRows) against two oracles: the full forward's logits position by position, and the
// same tokens fed one at a time with decode_step (cache contents checked by decoding further
// tokens). Also generate() with a prefilling decoder against the recompute twin across crops.
#include <gtest/gtest.h>

#include <algorithm>
#include <vector>

#include "core/check.h"
#include "core/rng.h"
#include "nn/gpt.h"
#include "sample/generate.h"

namespace scratchgpt {
namespace {

GPTConfig small_config(bool bias, const char* activation) {
  GPTConfig c;
  c.vocab_size = 29, c.block_size = 150, c.n_layer = 2, c.n_head = 4, c.n_embd = 24;
  c.activation = parse_activation(activation), c.bias = bias, c.tied = !bias, c.dropout = 0.0f;
  return c;
}

// Random weights larger than the 0.02 init, so that the logits depend strongly on the context.
void init_big(GPT& g, uint64_t seed) {
  Rng init(seed);
  g.init(init);
  Rng big(seed + 1);
  for (Param& p : g.params()) big.normal(p.value.data, p.value.numel(), 0.0f, 0.3f);
}

std::vector<int32_t> tokens(int n, int V) {
  std::vector<int32_t> t(n);
  for (int i = 0; i < n; ++i) t[i] = (i * 7 + i / 5) % V;
  return t;
}

void expect_near(const float* a, const float* b, int n, const char* what, int at) {
  for (int v = 0; v < n; ++v)
    ASSERT_NEAR(a[v], b[v], 2e-4f + 2e-4f * std::abs(b[v]))
        << what << " at " << at << " [" << v << "]";
}

TEST(GPTPrefill, EqualsFullForwardAndStepByStepDecoding) {
  for (bool bias : {true, false}) {
    const GPTConfig c = small_config(bias, bias ? "relu" : "gelu");
    GPT g(c);
    init_big(g, 5);
    const int V = c.vocab_size;
    const std::vector<int32_t> t = tokens(140, V);  // crosses two kPrefillRows chunk edges
    static_assert(GPT::kPrefillRows < 70, "the test needs several chunks");

    // Oracle 1: the full forward over the first n tokens, for several n.
    g.forward(t.data(), nullptr, 1, 140, nullptr);
    const std::vector<float> full(g.logits().begin(), g.logits().end());  // (1, 140, V)
    for (int n : {1, 2, 9, 63, 64, 65, 130, 140}) {
      g.reset_cache();
      const float* l = g.prefill(t.data(), n);
      expect_near(l, full.data() + int64_t{n - 1} * V, V, "prefill vs forward, n", n);
      EXPECT_EQ(g.cache_len(), n);
    }

    // Oracle 2: one token at a time; then both caches must decode the rest alike.
    GPT h(c);
    init_big(h, 5);
    h.reset_cache();
    for (int i = 0; i < 100; ++i) h.decode_step(t[i]);
    g.reset_cache();
    g.prefill(t.data(), 30);  // prefill in two parts: the second starts at position 30
    g.prefill(t.data() + 30, 70);
    for (int i = 100; i < 140; ++i) {
      const float* lg = g.decode_step(t[i]);
      const std::vector<float> a(lg, lg + V);
      const float* lh = h.decode_step(t[i]);
      expect_near(a.data(), lh, V, "after prefill vs after steps, position", i);
      expect_near(a.data(), full.data() + int64_t{i} * V, V, "after prefill vs forward, position",
                  i);
    }
  }
}

TEST(GPTPrefill, RejectsOverflowAndBadTokens) {
  const GPTConfig c = small_config(true, "gelu");
  GPT g(c);
  Rng init(1);
  g.init(init);
  g.reset_cache();
  std::vector<int32_t> t = tokens(151, c.vocab_size);
  EXPECT_THROW(g.prefill(t.data(), 151), Error);
  EXPECT_EQ(g.cache_len(), 0);
  t[3] = c.vocab_size;
  EXPECT_THROW(g.prefill(t.data(), 5), Error);
  EXPECT_THROW(g.prefill(t.data(), 0), Error);
}

TEST(GPTPrefill, GenerateWithPrefillMatchesRecomputeAcrossCrops) {
  GPTConfig c = small_config(false, "gelu");
  c.block_size = 40;  // 100 tokens cross the crop several times
  // A GPT that counts its prefills.
  struct CountingGPT : GPT {
    using GPT::GPT;
    int prefills = 0;
    const float* prefill(const int32_t* t, int n) override {
      ++prefills;
      return GPT::prefill(t, n);
    }
  };
  CountingGPT fast(c);
  GPT slow(c);
  init_big(fast, 9);
  init_big(slow, 9);
  RecomputeModel re(slow);
  const std::vector<int32_t> prompt = tokens(50, c.vocab_size);  // longer than the window
  SamplingOptions o;
  std::vector<std::vector<float>> la, lb;
  Rng ra(17), rb(17);
  const auto ta = generate(fast, c.block_size, prompt, 100, o, ra,
                           [&](int32_t, const float* l) { la.emplace_back(l, l + c.vocab_size); });
  const auto tb = generate(re, c.block_size, prompt, 100, o, rb,
                           [&](int32_t, const float* l) { lb.emplace_back(l, l + c.vocab_size); });
  EXPECT_EQ(ta, tb);
  ASSERT_EQ(la.size(), lb.size());
  for (size_t s = 0; s < la.size(); ++s)
    expect_near(la[s].data(), lb[s].data(), c.vocab_size, "step", static_cast<int>(s));
  EXPECT_GE(fast.prefills, 1 + 3);  // the prompt, then a crop every window/2 tokens
  EXPECT_LE(fast.cache_len(), c.block_size);
}

}  // namespace
}  // namespace scratchgpt
