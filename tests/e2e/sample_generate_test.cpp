// sample_generate_test.cpp: the sampler's filtered distribution against a direct computation of
// temperature / top-k / top-p, multinomial draws that respect it, and generation through the GPT's
// KV cache (context crops included) against the slow twin that recomputes the whole window with
// forward() for every token: same logits to rounding, same tokens. (The GPT's own test shows
// decode_step equals the full forward position by position; this one tests the sampler's use of
// it.) The slide rule's logits past the context equal a plain forward over the last block_size
// tokens; a stop token ends generation.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>

#include "core/check.h"
#include "nn/bigram.h"
#include "nn/gpt.h"
#include "sample/generate.h"
#include "sample/sampler.h"

using namespace scratchgpt;

namespace {

std::vector<double> softmax(const std::vector<double>& x) {
  const double mx = *std::max_element(x.begin(), x.end());
  std::vector<double> p(x.size());
  double z = 0;
  for (size_t i = 0; i < x.size(); ++i) z += (p[i] = std::exp(x[i] - mx));
  for (double& v : p) v /= z;
  return p;
}

}  // namespace

TEST(Sampler, TemperatureTopKTopPMatchDirectComputation) {
  const std::vector<float> logits = {1.0f, 3.0f, -2.0f, 2.5f, 0.0f, 2.9f};
  std::vector<float> probs(6);
  // Temperature only: softmax(logits / 0.7).
  SamplingOptions o;
  o.temperature = 0.7f;
  sampling_probs(ExecContext(), logits.data(), 6, o, probs.data());
  std::vector<double> scaled;
  for (float l : logits) scaled.push_back(l / 0.7);
  const std::vector<double> want = softmax(scaled);
  for (int i = 0; i < 6; ++i) EXPECT_NEAR(probs[i], want[i], 1e-6);
  // Top-3 keeps ids 1, 5, 3 and renormalises.
  o = SamplingOptions();
  o.top_k = 3;
  sampling_probs(ExecContext(), logits.data(), 6, o, probs.data());
  const std::vector<double> top3 = softmax({3.0, 2.5, 2.9});
  EXPECT_NEAR(probs[1], top3[0], 1e-6);
  EXPECT_NEAR(probs[3], top3[1], 1e-6);
  EXPECT_NEAR(probs[5], top3[2], 1e-6);
  EXPECT_EQ(probs[0] + probs[2] + probs[4], 0.0f);
  // Top-p: full softmax sorted is [p1, p5, p3, p0, p4, p2]; keep until the mass reaches 0.6.
  o = SamplingOptions();
  o.top_p = 0.6f;
  const std::vector<double> full = softmax({1.0, 3.0, -2.0, 2.5, 0.0, 2.9});
  sampling_probs(ExecContext(), logits.data(), 6, o, probs.data());
  ASSERT_LT(full[1], 0.6);
  ASSERT_GE(full[1] + full[5], 0.6);  // so exactly ids 1 and 5 survive
  EXPECT_NEAR(probs[1], full[1] / (full[1] + full[5]), 1e-6);
  EXPECT_NEAR(probs[5], full[5] / (full[1] + full[5]), 1e-6);
  EXPECT_EQ(probs[0] + probs[2] + probs[3] + probs[4], 0.0f);
  // Draws only ever pick surviving tokens, in about the right proportion.
  Rng rng(5);
  std::vector<float> scratch;
  int count1 = 0;
  for (int n = 0; n < 4000; ++n) {
    const int32_t t = sample_token(ExecContext(), logits.data(), 6, o, rng, scratch);
    ASSERT_TRUE(t == 1 || t == 5) << t;
    count1 += t == 1;
  }
  EXPECT_NEAR(count1 / 4000.0, full[1] / (full[1] + full[5]), 0.03);
  // Bad options are errors.
  o = SamplingOptions();
  o.temperature = 0;
  EXPECT_THROW(o.validate(), Error);
}

TEST(Generate, KvCacheWithCropsEqualsFullRecompute) {
  GPTConfig c;
  c.vocab_size = 13, c.block_size = 8, c.n_layer = 2, c.n_head = 2, c.n_embd = 16;
  c.activation = Activation::kGelu, c.bias = false, c.tied = true;
  GPT fast(c), slow(c);
  Rng init(3);
  fast.init(init);
  // Larger weights than the 0.02 init so that logits depend strongly on the context.
  Rng big(4);
  for (Param& p : fast.params())
    if (p.value.rank == 2) big.normal(p.value.data, p.value.numel(), 0.0f, 0.4f);
  for (size_t i = 0; i < fast.params().size(); ++i)
    std::copy(fast.params()[i].value.begin(), fast.params()[i].value.end(),
              slow.params()[i].value.begin());

  RecomputeModel re(slow);
  // What the slow model holds, to check the crop below.
  const std::vector<int32_t>& held = re.context();

  const std::vector<int32_t> prompt = {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11};  // longer than 8
  SamplingOptions o;
  o.temperature = 1.3f;
  std::vector<std::vector<float>> la, lb;
  Rng ra(99), rb(99);
  const auto ta = generate(fast, c.block_size, prompt, 40, o, ra,
                           [&](int32_t, const float* l) { la.emplace_back(l, l + c.vocab_size); });
  std::vector<int32_t> seq = prompt;  // everything before the token being drawn
  const auto tb = generate(re, c.block_size, prompt, 40, o, rb, [&](int32_t t, const float* l) {
    lb.emplace_back(l, l + c.vocab_size);
    // The logits came from the most recent tokens: a suffix of the text, within the window,
    // and after a crop at least window/2 + 1 of them.
    ASSERT_LE(held.size(), static_cast<size_t>(c.block_size));
    ASSERT_GE(held.size(), static_cast<size_t>(c.block_size / 2 + 1));
    ASSERT_TRUE(std::equal(held.begin(), held.end(), seq.end() - held.size()))
        << "step " << lb.size();
    seq.push_back(t);
  });
  ASSERT_EQ(ta.size(), 40u);
  EXPECT_EQ(ta, tb);
  ASSERT_EQ(la.size(), lb.size());
  for (size_t s = 0; s < la.size(); ++s)
    for (int v = 0; v < c.vocab_size; ++v)
      ASSERT_NEAR(la[s][v], lb[s][v], 1e-4f) << "step " << s << " token " << v;
  // 40 tokens through a window of 8 crossed the crop several times and never overflowed it.
  EXPECT_LE(fast.cache_len(), c.block_size);
}

TEST(Generate, EmptyPromptIsAnError) {
  Bigram m(3);
  Rng rng(1);
  EXPECT_THROW(generate(m, 4, {}, 3, SamplingOptions(), rng, nullptr), Error);
}

// --context-rule slide, nanoGPT's rule: every step's logits are those of a plain forward over the
// last block_size tokens of the text so far (idx[:, -block_size:]), past the context included.
TEST(Generate, SlideEqualsForwardOverTheLastWindow) {
  GPTConfig c;
  c.vocab_size = 13, c.block_size = 8, c.n_layer = 2, c.n_head = 2, c.n_embd = 16;
  c.activation = Activation::kGelu, c.bias = true, c.tied = true;
  GPT fast(c), plain(c);
  Rng init(3);
  fast.init(init);
  Rng big(4);
  for (Param& p : fast.params())
    if (p.value.rank == 2) big.normal(p.value.data, p.value.numel(), 0.0f, 0.4f);
  for (size_t i = 0; i < fast.params().size(); ++i)
    std::copy(fast.params()[i].value.begin(), fast.params()[i].value.end(),
              plain.params()[i].value.begin());
  const std::vector<int32_t> prompt = {1, 2, 3};
  std::vector<int32_t> seq = prompt;  // everything before the token being drawn
  int steps = 0;
  Rng rng(7);
  generate(
      fast, c.block_size, prompt, 30, SamplingOptions(), rng,
      [&](int32_t t, const float* l) {
        const int T = std::min<int>(static_cast<int>(seq.size()), c.block_size);
        plain.forward(seq.data() + seq.size() - T, nullptr, 1, T, nullptr);
        const float* want = plain.logits().data + int64_t{T - 1} * c.vocab_size;
        for (int v = 0; v < c.vocab_size; ++v)
          ASSERT_NEAR(l[v], want[v], 1e-4f) << "step " << steps << " token " << v;
        seq.push_back(t);
        ++steps;
      },
      ContextRule::kSlide);
  EXPECT_EQ(steps, 30);  // 3 + 30 tokens: 25 steps past the full context
}

// generate() ends right after drawing stop_token, which it returns and passes on.
TEST(Generate, StopsAfterTheStopToken) {
  Bigram m(3);
  Rng init(1);
  m.init(init);
  Rng rng(2);
  std::vector<int32_t> seen;
  const std::vector<int32_t> all = generate(m, 4, {0}, 200, SamplingOptions(), rng,
                                            [&](int32_t t, const float*) { seen.push_back(t); });
  const auto first2 = std::find(all.begin(), all.end(), 2);
  ASSERT_NE(first2, all.end());
  Rng rng2(2);
  const std::vector<int32_t> stopped =
      generate(m, 4, {0}, 200, SamplingOptions(), rng2, nullptr, ContextRule::kHalf, 2);
  EXPECT_EQ(stopped, std::vector<int32_t>(all.begin(), first2 + 1));
}
