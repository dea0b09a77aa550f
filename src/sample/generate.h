// generate.h: autoregressive generation one token at a time through the model's cache
// (LanguageModel::decode_step; the GPT's KV cache). When the context fills the window, the
// default rule (ContextRule::kHalf) keeps the last window/2 tokens and re-prefills them (one crop
// per window/2 new tokens instead of a full recompute per token); ContextRule::kSlide is
// nanoGPT's rule, exact and slower: every token past the window sees exactly the last `window`
// tokens (idx[:, -block_size:]), re-prefilled for each new token. The prompt and the kept tokens
// go in through prefill (all at once).
// RecomputeModel runs the whole window through forward() for every token: the slow, obviously
// right twin the KV-cache path is tested against. Leaves out: batching several prompts.
#pragma once

#include <cstdint>
#include <functional>
#include <utility>
#include <vector>

#include "core/rng.h"
#include "nn/language_model.h"
#include "sample/sampler.h"

namespace scratchgpt {

// What happens when the context is full (see above).
enum class ContextRule { kHalf, kSlide };
inline constexpr std::pair<ContextRule, const char*> kContextRuleNames[] = {
    {ContextRule::kHalf, "half"}, {ContextRule::kSlide, "slide"}};

// The slow twin of a model's cache: a LanguageModel that keeps the context's tokens and runs the
// whole of it through the wrapped model's forward(1, len) for every new token. Training calls go
// straight to the wrapped model.
class RecomputeModel final : public LanguageModel {
 public:
  explicit RecomputeModel(LanguageModel& model) : model_(model) {}
  const std::vector<int32_t>& context() const { return tokens_; }  // what the cache holds

  void reset_cache() override { tokens_.clear(); }
  const float* decode_step(int32_t token) override;
  int cache_len() const override { return static_cast<int>(tokens_.size()); }

  void init(Rng& rng) override { model_.init(rng); }
  float forward(const int32_t* idx, const int32_t* targets, int B, int T,
                Rng* dropout_rng) override {
    return model_.forward(idx, targets, B, T, dropout_rng);
  }
  void backward() override { model_.backward(); }
  void backward(const GradsReady& ready) override { model_.backward(ready); }
  Tensor logits() override { return model_.logits(); }
  std::vector<Param>& params() override { return model_.params(); }
  std::span<float> grad_slab() override { return model_.grad_slab(); }
  int vocab_size() const override { return model_.vocab_size(); }
  int block_size() const override { return model_.block_size(); }
  const ExecContext& exec() const override { return model_.exec(); }

 private:
  LanguageModel& model_;
  std::vector<int32_t> tokens_;
};

// Feeds the prompt (its last `window` tokens, window <= model.block_size()) through the model's
// cache, then samples num_tokens tokens, calling on_token(id, logits) for each right after it is
// drawn (logits: the distribution it was drawn from, before filtering). Stops early right after
// drawing stop_token (>= 0; it is passed to on_token and returned like any other). Returns the
// new tokens.
std::vector<int32_t> generate(LanguageModel& model, int window, const std::vector<int32_t>& prompt,
                              int num_tokens, const SamplingOptions& opt, Rng& rng,
                              const std::function<void(int32_t, const float*)>& on_token,
                              ContextRule rule = ContextRule::kHalf, int32_t stop_token = -1);

}  // namespace scratchgpt
