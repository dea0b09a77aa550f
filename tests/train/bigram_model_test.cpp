// bigram_model_test.cpp: the bigram's loss against a direct log-softmax in double, its gradient
// against central differences, and decode_step against forward.
#include <gtest/gtest.h>

#include <cmath>

#include "nn/bigram.h"

using namespace scratchgpt;

namespace {

// Mean cross-entropy of table[idx] against targets, in double.
double direct_loss(const Bigram& m, const float* table, const std::vector<int32_t>& idx,
                   const std::vector<int32_t>& tgt) {
  const int V = m.vocab_size();
  double sum = 0;
  for (size_t n = 0; n < idx.size(); ++n) {
    const float* row = table + static_cast<int64_t>(idx[n]) * V;
    double z = 0;
    for (int v = 0; v < V; ++v) z += std::exp(static_cast<double>(row[v]));
    sum += std::log(z) - row[tgt[n]];
  }
  return sum / static_cast<double>(idx.size());
}

}  // namespace

TEST(Bigram, LossGradientAndDecode) {
  const int V = 7, B = 2, T = 5;
  Bigram m(V);
  Rng rng(1337);
  m.init(rng);
  const std::vector<int32_t> idx = {0, 1, 2, 3, 4, 5, 6, 0, 1, 1};
  const std::vector<int32_t> tgt = {1, 2, 3, 4, 5, 6, 0, 1, 1, 3};
  float* table = m.params()[0].value.data;
  const float loss = m.forward(idx.data(), tgt.data(), B, T, nullptr);
  EXPECT_NEAR(loss, direct_loss(m, table, idx, tgt), 1e-5);
  // logits = table[idx]
  EXPECT_EQ(m.logits().at(1, 2, 4), table[idx[1 * T + 2] * V + 4]);
  m.zero_grad();
  m.backward();
  const float* grad = m.params()[0].grad.data;
  for (int i = 0; i < V * V; ++i) {
    const float keep = table[i];
    const float h = 1e-2f;
    table[i] = keep + h;
    const double lp = direct_loss(m, table, idx, tgt);
    table[i] = keep - h;
    const double lm = direct_loss(m, table, idx, tgt);
    table[i] = keep;
    EXPECT_NEAR(grad[i], (lp - lm) / (2 * h), 2e-5) << "table element " << i;
  }
  m.reset_cache();
  const float* l = m.decode_step(3);
  for (int v = 0; v < V; ++v) EXPECT_EQ(l[v], table[3 * V + v]);
  EXPECT_EQ(m.cache_len(), 1);
}

TEST(Bigram, InitIsStandardNormal) {
  Bigram m(65);
  Rng rng(1);
  m.init(rng);
  double mean = 0, sq = 0;
  for (float w : m.params()[0].value) mean += w, sq += static_cast<double>(w) * w;
  const double n = 65.0 * 65.0;
  EXPECT_NEAR(mean / n, 0.0, 0.05);
  EXPECT_NEAR(sq / n, 1.0, 0.08);
  // The initial loss on uniform targets is then well above ln(65) = 4.17 (lecture: ~4.8).
}
