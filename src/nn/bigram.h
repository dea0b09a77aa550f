// bigram.h: Bigram, the lecture's BigramLanguageModel: each token reads the logits for the next
// token straight off a (V, V) lookup table, logits = table[idx], loss = F.cross_entropy.
// Leaves out: any context beyond the current token. Its successor is the GPT (gpt.h).
#pragma once

#include <climits>
#include <cstdint>
#include <vector>

#include "core/arena.h"
#include "core/rng.h"
#include "nn/language_model.h"

namespace scratchgpt {

class Bigram : public LanguageModel {
 public:
  // ctx: how to compute, kept for every kernel call (its pool must outlive the model).
  explicit Bigram(int V, const ExecContext& ctx = ExecContext());
  // nn.Embedding(V, V) init: every entry ~ normal(0, 1), drawn as torch draws it (init.h).
  void init(Rng& rng) override;

  float forward(const int32_t* idx, const int32_t* targets, int B, int T,
                Rng* dropout_rng) override;
  void backward() override;
  using LanguageModel::backward;  // backward(ready): the whole slab at the end
  Tensor logits() override { return logits_; }
  std::vector<Param>& params() override { return store_.params(); }
  std::span<float> grad_slab() override { return store_.grad_slab(); }
  int vocab_size() const override { return V_; }
  int block_size() const override { return INT_MAX; }  // any context: only the last token counts
  const ExecContext& exec() const override { return ctx_; }

  // Inference one token at a time, the same calls as GPT's KV-cache path (nothing to cache here).
  void reset_cache() override { cache_len_ = 0; }
  const float* decode_step(int32_t token) override;  // logits (V) for the token after `token`
  int cache_len() const override { return cache_len_; }

  Tensor table() { return table_; }  // (V, V)

 private:
  int V_;
  ExecContext ctx_;
  Tensor table_, dtable_;  // (V, V) token_embedding_table.weight and its gradient
  ParamStore store_;       // their slabs, with the AdamW moments
  // Activations of the last forward, resized when B*T grows.
  int B_ = 0, T_ = 0;
  bool have_targets_ = false;
  std::vector<float> logits_buf_, probs_, losses_;  // (B, T, V), (B, T, V), (B, T)
  std::vector<int32_t> idx_, targets_;              // (B, T)
  Tensor logits_;
  int cache_len_ = 0;
};

}  // namespace scratchgpt
