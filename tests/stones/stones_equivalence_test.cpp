// stones_equivalence_test.cpp: the identities that tie the stepping stones together:
//  - the three averaging methods (loops, tril/row-sum matmul, softmax over -inf) agree;
//  - the two causal masks (-inf before softmax; zero after softmax and renormalise) agree;
//  - stacked heads (Raschka's wrapper, the lecture's heads + proj) equal the efficient split
//    projection given the same weights, and the efficient form equals the engine's fused-qkv
//    CausalSelfAttention;
//  - SelfAttention_v1 with W = v2's Linear weights transposed equals SelfAttention_v2;
//  - causality: changing inputs after position t leaves every output up to t bit-identical.
#include <gtest/gtest.h>

#include <cstring>

#include "core/arena.h"
#include "core/exec_context.h"
#include "nn/causal_self_attention.h"
#include "stones/bow_average.h"
#include "stones_test_util.h"

namespace scratchgpt::stones {
namespace {

const ExecContext ex;  // the engine modules' kernels: the default pool and level

using scratchgpt::test::expect_close;
using scratchgpt::test::random_vector;

TEST(StonesEquivalence, ThreeAveragingMethodsAgree) {
  const int B = 4, T = 8, C = 2;
  std::vector<float> x = random_vector<float>(B * T * C, 1, -2.0, 2.0);  // (B, T, C)
  std::vector<float> xbow(x.size()), xbow2(x.size()), xbow3(x.size());
  bow_average_loops(xbow.data(), x.data(), B, T, C);
  std::vector<float> wei(T * T);  // (T, T)
  bow_weights_tril(wei.data(), T);
  bow_apply(xbow2.data(), wei.data(), x.data(), B, T, C);
  bow_weights_softmax(wei.data(), T);
  bow_apply(xbow3.data(), wei.data(), x.data(), B, T, C);
  expect_close(xbow2, xbow, 1e-6, 0, "xbow2 (tril / sum) vs xbow (loops)");
  expect_close(xbow3, xbow, 1e-6, 0, "xbow3 (softmax) vs xbow (loops)");
  // An independent check of the definition: row t is the mean of rows 0..t, in double.
  for (int b = 0; b < B; ++b)
    for (int t = 0; t < T; ++t)
      for (int c = 0; c < C; ++c) {
        double s = 0;
        for (int i = 0; i <= t; ++i) s += x[(b * T + i) * C + c];
        EXPECT_NEAR(xbow[(b * T + t) * C + c], s / (t + 1), 1e-6);
      }
}

TEST(StonesEquivalence, TwoCausalMasksAgree) {
  const int B = 2, T = 6, C = 3, OC = 4;
  CausalAttention<float> a(C, OC, T, 0.0f);
  Rng rng(123);
  a.init(rng);
  CausalAttention<float> b = a;
  b.mask = CausalMask::kRenormalise;
  std::vector<float> x = random_vector<float>(B * T * C, 2);
  std::vector<float> ya(B * T * OC), yb(ya.size());
  a.forward(ya.data(), x.data(), B, T);
  b.forward(yb.data(), x.data(), B, T);
  expect_close(yb, ya, 1e-6, 0, "renormalised vs -inf mask: context vectors");
  expect_close(b.weights, a.weights, 1e-6, 0, "renormalised vs -inf mask: weights");
  for (int t = 0; t < T; ++t)
    for (int s = t + 1; s < T; ++s) EXPECT_EQ(a.weights[t * T + s], 0.0f);
}

// Head h of the split projection reads rows [h*HS, (h+1)*HS) of W_query/W_key/W_value.
template <typename F>
void copy_rows(Linear<F>& dst, int row0, const Linear<F>& src) {
  std::copy(src.weight.begin(), src.weight.end(), dst.weight.begin() + int64_t{row0} * dst.C);
  if (src.has_bias) std::copy(src.bias.begin(), src.bias.end(), dst.bias.begin() + row0);
}

TEST(StonesEquivalence, StackedHeadsWrapperEqualsSplitMultiHeadAttention) {
  const int B = 2, T = 6, C = 3, HS = 2, NH = 3;
  MultiHeadAttentionWrapper<float> wrapper(C, HS, T, 0.0f, NH, /*qkv_bias=*/true);
  Rng rng(123);
  wrapper.init(rng);
  MultiHeadAttention<float> mha(C, NH * HS, T, 0.0f, NH, /*qkv_bias=*/true);
  for (int h = 0; h < NH; ++h) {
    copy_rows(mha.W_query, h * HS, wrapper.heads[h].W_query);
    copy_rows(mha.W_key, h * HS, wrapper.heads[h].W_key);
    copy_rows(mha.W_value, h * HS, wrapper.heads[h].W_value);
  }
  // The wrapper has no output projection: make out_proj the identity.
  std::fill(mha.out_proj.weight.begin(), mha.out_proj.weight.end(), 0.0f);
  for (int i = 0; i < NH * HS; ++i) mha.out_proj.weight[i * NH * HS + i] = 1.0f;
  std::fill(mha.out_proj.bias.begin(), mha.out_proj.bias.end(), 0.0f);

  std::vector<float> x = random_vector<float>(B * T * C, 3);
  std::vector<float> y1(B * T * NH * HS), y2(y1.size());
  wrapper.forward(y1.data(), x.data(), B, T);
  mha.forward(y2.data(), x.data(), B, T);
  expect_close(y2, y1, 1e-6, 0, "split MultiHeadAttention vs stacked wrapper");
  // And the same gradient with respect to x.
  std::vector<float> g = random_vector<float>(static_cast<int64_t>(y1.size()), 4);
  std::vector<float> dx1(x.size(), 0.0f), dx2(x.size(), 0.0f);
  wrapper.backward(dx1.data(), g.data());
  mha.backward(dx2.data(), g.data());
  expect_close(dx2, dx1, 1e-6, 0, "dx: split vs stacked");
}

TEST(StonesEquivalence, LectureHeadsPlusProjEqualSplitMultiHeadAttention) {
  const int B = 2, T = 5, C = 8, NH = 2, HS = 4;
  LectureMultiHeadAttention<float> lecture(C, NH, HS, 8, 0.0f);
  Rng rng(1337);
  lecture.init(rng);
  MultiHeadAttention<float> mha(C, C, 8, 0.0f, NH);
  for (int h = 0; h < NH; ++h) {
    copy_rows(mha.W_query, h * HS, lecture.heads[h].query);
    copy_rows(mha.W_key, h * HS, lecture.heads[h].key);
    copy_rows(mha.W_value, h * HS, lecture.heads[h].value);
  }
  mha.out_proj.weight = lecture.proj.weight;
  mha.out_proj.bias = lecture.proj.bias;
  std::vector<float> x = random_vector<float>(B * T * C, 5);
  std::vector<float> y1(B * T * C), y2(y1.size());
  lecture.forward(y1.data(), x.data(), B, T);
  mha.forward(y2.data(), x.data(), B, T);
  // Heads scale by * HS^-0.5, the book's module by / sqrt(HS): equal up to rounding.
  expect_close(y2, y1, 1e-6, 0, "split MultiHeadAttention vs the lecture's heads + proj");
}


TEST(StonesEquivalence, SplitMultiHeadAttentionEqualsEngineCausalSelfAttention) {
  const int B = 2, T = 6, C = 8, NH = 2;
  MultiHeadAttention<float> mha(C, C, T, 0.0f, NH, /*qkv_bias=*/true);
  Rng rng(7);
  mha.init(rng);

  CausalSelfAttention engine(C, NH, /*bias=*/true, 0.0f);
  ParamStore params;  // the engine module's parameters in storage of their own
  params.build([&](ParamVisitor& v) { engine.visit_params("attn", v); });
  SlabPlanner count_acts, count_scratch;
  engine.plan(count_acts, count_scratch, B, T);
  Arena acts(count_acts.used()), scratch(count_scratch.used());
  SlabPlanner plan_acts(acts.base(), 0), plan_scratch(scratch.base(), 0);
  engine.plan(plan_acts, plan_scratch, B, T);
  // c_attn (3C, C) = [W_query; W_key; W_value] stacked by rows; c_proj = out_proj.
  float* w = params.get("attn.c_attn.weight").value.data;
  float* b = params.get("attn.c_attn.bias").value.data;
  int part = 0;
  for (const Linear<float>* l : {&mha.W_query, &mha.W_key, &mha.W_value}) {
    std::copy(l->weight.begin(), l->weight.end(), w + int64_t{part} * C * C);
    std::copy(l->bias.begin(), l->bias.end(), b + part * C);
    ++part;
  }
  std::copy(mha.out_proj.weight.begin(), mha.out_proj.weight.end(),
            params.get("attn.c_proj.weight").value.data);
  std::copy(mha.out_proj.bias.begin(), mha.out_proj.bias.end(),
            params.get("attn.c_proj.bias").value.data);

  std::vector<float> x = random_vector<float>(B * T * C, 6);
  std::vector<float> y1(B * T * C);
  mha.forward(y1.data(), x.data(), B, T);
  const float* y2 = engine.forward(ex, x.data(), B, T, nullptr);
  expect_close(y2, y1.data(), B * T * C, 1e-5, 1e-5,
               "engine CausalSelfAttention vs MultiHeadAttention");
  std::vector<float> g = random_vector<float>(B * T * C, 8);
  std::vector<float> dx1(x.size(), 0.0f), dx2(x.size(), 0.0f);
  mha.backward(dx1.data(), g.data());
  engine.backward(ex, dx2.data(), g.data());
  expect_close(dx2, dx1, 1e-5, 1e-5, "dx: engine vs MultiHeadAttention");
}

TEST(StonesEquivalence, SelfAttentionV1WithTransposedV2WeightsEqualsV2) {
  const int T = 6, C = 3, OC = 2;
  SelfAttentionV2<float> v2(C, OC);
  Rng rng(789);
  v2.init(rng);
  SelfAttentionV1<float> v1(C, OC);
  auto transpose = [&](std::vector<float>& dst, const std::vector<float>& w /* (OC, C) */) {
    for (int o = 0; o < OC; ++o)
      for (int c = 0; c < C; ++c) dst[c * OC + o] = w[o * C + c];  // (C, OC)
  };
  transpose(v1.W_query, v2.W_query.weight);
  transpose(v1.W_key, v2.W_key.weight);
  transpose(v1.W_value, v2.W_value.weight);
  std::vector<float> x = random_vector<float>(T * C, 9, 0.0, 1.0);
  std::vector<float> y1(T * OC), y2(T * OC);
  v1.forward(y1.data(), x.data(), T);
  v2.forward(y2.data(), x.data(), T);
  expect_close(y1, y2, 1e-6, 0, "SelfAttention_v1 (W = v2.weight.T) vs SelfAttention_v2");
}

// Runs fwd on x and on x with every position after t changed; outputs up to t must be
// bit-identical. x and out are (B, T, Cin) and (B, T, Cout).
template <typename Fwd>
void expect_causal(const std::string& what, int B, int T, int Cin, int Cout, Fwd fwd) {
  std::vector<float> x = random_vector<float>(B * T * Cin, 10);
  std::vector<float> y(B * T * Cout);
  fwd(y.data(), x.data());
  for (int t = 0; t < T - 1; ++t) {
    std::vector<float> x2 = x;
    for (int b = 0; b < B; ++b)
      for (int s = t + 1; s < T; ++s)
        for (int c = 0; c < Cin; ++c) x2[(b * T + s) * Cin + c] += 3.0f + static_cast<float>(s + c);
    std::vector<float> y2(y.size());
    fwd(y2.data(), x2.data());
    for (int b = 0; b < B; ++b)
      EXPECT_EQ(std::memcmp(y.data() + b * T * Cout, y2.data() + b * T * Cout,
                            sizeof(float) * (t + 1) * Cout),
                0)
          << what << ": outputs up to t = " << t << " changed (batch " << b << ")";
    // And the future did change (the test would be empty otherwise).
    EXPECT_NE(std::memcmp(y.data(), y2.data(), sizeof(float) * y.size()), 0) << what;
  }
}

TEST(StonesEquivalence, CausalityBitIdenticalPast) {
  const int B = 2, T = 6, C = 4;
  Rng rng(11);
  CausalAttention<float> ca(C, 3, T, 0.0f);
  ca.init(rng);
  expect_causal("CausalAttention", B, T, C, 3,
                [&](float* y, const float* x) { ca.forward(y, x, B, T); });
  Head<float> head(C, 2, T, 0.0f);
  head.init(rng);
  expect_causal("Head", B, T, C, 2, [&](float* y, const float* x) { head.forward(y, x, B, T); });
  MultiHeadAttentionWrapper<float> wrapper(C, 2, T, 0.0f, 2);
  wrapper.init(rng);
  expect_causal("MultiHeadAttentionWrapper", B, T, C, 4,
                [&](float* y, const float* x) { wrapper.forward(y, x, B, T); });
  LectureMultiHeadAttention<float> lecture(C, 2, 2, T, 0.0f);
  lecture.init(rng);
  expect_causal("LectureMultiHeadAttention", B, T, C, C,
                [&](float* y, const float* x) { lecture.forward(y, x, B, T); });
  MultiHeadAttention<float> mha(C, 4, T, 0.0f, 2);
  mha.init(rng);
  expect_causal("MultiHeadAttention", B, T, C, 4,
                [&](float* y, const float* x) { mha.forward(y, x, B, T); });
  std::vector<float> wei(T * T);
  bow_weights_softmax(wei.data(), T);
  expect_causal("bow average", B, T, C, C,
                [&](float* y, const float* x) { bow_apply(y, wei.data(), x, B, T, C); });
}

TEST(StonesEquivalence, RenormaliseMaskIsCausalUpToRounding) {
  // Softmax first sees the future scores, so the past is equal only up to rounding (the book's
  // reason to prefer the -inf mask is efficiency; no information leaks either way).
  const int B = 1, T = 6, C = 3;
  CausalAttention<float> ca(C, 2, T, 0.0f);
  Rng rng(12);
  ca.init(rng);
  ca.mask = CausalMask::kRenormalise;
  std::vector<float> x = random_vector<float>(B * T * C, 13);
  std::vector<float> y(B * T * 2), y2(y.size());
  ca.forward(y.data(), x.data(), B, T);
  std::vector<float> x2 = x;
  for (int c = 0; c < C; ++c) x2[(T - 1) * C + c] += 5.0f;
  ca.forward(y2.data(), x2.data(), B, T);
  expect_close(y2.data(), y.data(), (T - 1) * 2, 1e-6, 0, "renormalised past");
}

TEST(StonesEquivalence, DropoutMaskMatchesNnDropoutDraws) {
  // torch.manual_seed(123); nn.Dropout(0.5)(torch.ones(6, 6)) (see the causal-attention lesson).
  Rng rng(123);
  std::vector<float> m = draw_dropout_mask<float>(&rng, 36, 0.5f);
  const float want[36] = {2, 2, 0, 2, 2, 0, 0, 0, 0, 2, 0, 2, 2, 2, 2, 2, 0, 2,
                          0, 2, 2, 0, 0, 2, 0, 2, 0, 2, 0, 2, 0, 2, 2, 2, 2, 0};
  expect_close(m.data(), want, 36, 0, 0, "dropout mask");
}

TEST(StonesEquivalence, BadShapesAreOneLineErrors) {
  EXPECT_THROW(MultiHeadAttention<float>(3, 5, 6, 0.0f, 2), Error);
  EXPECT_THROW(CausalAttention<float>(3, 2, 6, 1.0f), Error);
  CausalAttention<float> ca(3, 2, 4, 0.0f);
  std::vector<float> x(2 * 5 * 3), y(2 * 5 * 2);
  EXPECT_THROW(ca.forward(y.data(), x.data(), 2, 5), Error);  // T > context_length
}

}  // namespace
}  // namespace scratchgpt::stones
