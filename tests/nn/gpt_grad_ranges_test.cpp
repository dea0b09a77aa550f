// gpt_grad_ranges_test.cpp: GPT::backward(ready), the hook the overlapped all-reduce uses: the
// ranges it reports tile the gradient slab exactly once, in the order backward finishes them (the
// tail, blocks L-1 ... 0, the embeddings); nothing writes into a range after it is reported (its
// values then equal the final gradients, bit for bit); and the gradients equal plain backward()'s.
// Tied and untied lm_head, as the tail's extent differs.
#include <gtest/gtest.h>

#include <cstddef>
#include <cstring>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include "core/rng.h"
#include "nn/gpt.h"

namespace scratchgpt {
namespace {

class GptGradRanges : public ::testing::TestWithParam<bool> {};

TEST_P(GptGradRanges, ReportedRangesTileTheSlabInBackwardOrderAndAreFinal) {
  GPTConfig cfg;
  cfg.vocab_size = 29;
  cfg.block_size = 8;
  cfg.n_layer = 3;
  cfg.n_head = 2;
  cfg.n_embd = 16;
  cfg.tied = GetParam();
  GPT gpt(cfg);
  Rng init(5);
  gpt.init(init);
  const int B = 2, T = 8, L = cfg.n_layer;
  std::vector<int32_t> idx(B * T), tgt(B * T);
  for (int i = 0; i < B * T; ++i) {
    idx[static_cast<size_t>(i)] = (i * 7) % cfg.vocab_size;
    tgt[static_cast<size_t>(i)] = (i * 11 + 3) % cfg.vocab_size;
  }
  const std::span<float> slab = gpt.grad_slab();

  gpt.zero_grad();
  gpt.forward(idx.data(), tgt.data(), B, T, nullptr);
  gpt.backward();
  const std::vector<float> plain(slab.begin(), slab.end());

  // The slab's values in each range at the moment it is reported.
  std::vector<std::pair<size_t, size_t>> ranges;
  std::vector<std::vector<float>> at_report;
  gpt.zero_grad();
  gpt.forward(idx.data(), tgt.data(), B, T, nullptr);
  gpt.backward([&](size_t begin, size_t end) {
    ranges.emplace_back(begin, end);
    at_report.emplace_back(slab.begin() + static_cast<std::ptrdiff_t>(begin),
                           slab.begin() + static_cast<std::ptrdiff_t>(end));
  });
  const std::vector<float> hooked(slab.begin(), slab.end());
  EXPECT_EQ(std::memcmp(plain.data(), hooked.data(), plain.size() * sizeof(float)), 0)
      << "backward(ready) computes other gradients than backward()";

  // The tail, blocks L-1 ... 0, the embeddings: L + 2 ranges, each ending where the previous one
  // began, from the slab's end down to 0.
  const std::vector<size_t>& cuts = gpt.grad_ranges();
  ASSERT_EQ(cuts.size(), static_cast<size_t>(L + 1));
  ASSERT_EQ(ranges.size(), static_cast<size_t>(L + 2));
  size_t end = slab.size();
  for (size_t i = 0; i < ranges.size(); ++i) {
    EXPECT_EQ(ranges[i].second, end) << "range " << i;
    EXPECT_LT(ranges[i].first, ranges[i].second) << "range " << i;
    end = ranges[i].first;
  }
  EXPECT_EQ(end, 0u);
  EXPECT_EQ(ranges.front().first, cuts[static_cast<size_t>(L)]);  // the tail: ln_f (+ lm_head)
  for (int l = 0; l < L; ++l)
    EXPECT_EQ(ranges[static_cast<size_t>(L - l)].first, cuts[static_cast<size_t>(l)]) << l;

  // Each block's Params lie inside its range, and ln_f's and wte's in theirs.
  for (const Param& p : gpt.params()) {
    const size_t at = static_cast<size_t>(p.grad.data - slab.data());
    size_t lo = 0, hi = cuts[0];  // the embeddings
    if (p.name.rfind("blocks.", 0) == 0) {
      const int l = std::stoi(p.name.substr(7));
      lo = cuts[static_cast<size_t>(l)];
      hi = cuts[static_cast<size_t>(l) + 1];
    } else if (p.name != "wte" && p.name != "wpe") {
      lo = cuts[static_cast<size_t>(L)];
      hi = slab.size();
    }
    EXPECT_GE(at, lo) << p.name;
    EXPECT_LE(at + static_cast<size_t>(p.grad.numel()), hi) << p.name;
  }

  // Final when reported: nothing later in backward changed a range's values.
  for (size_t i = 0; i < ranges.size(); ++i)
    EXPECT_EQ(std::memcmp(at_report[i].data(), hooked.data() + ranges[i].first,
                          at_report[i].size() * sizeof(float)),
              0)
        << "range " << i << " [" << ranges[i].first << ", " << ranges[i].second
        << ") changed after it was reported";
}

INSTANTIATE_TEST_SUITE_P(TiedAndUntied, GptGradRanges, ::testing::Bool());

}  // namespace
}  // namespace scratchgpt
