// model_factory.h: builds the model a TrainConfig names ("bigram" or "gpt") behind the
// LanguageModel interface, with its init and its one-token-at-a-time inference (the GPT's KV cache)
// as plain functions, so the trainer and the sampler never need to know which model they drive.
// Leaves out: models other than these two.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>

#include "core/rng.h"
#include "nn/language_model.h"
#include "train/train_config.h"

namespace scratchgpt {

struct BuiltModel {
  std::unique_ptr<LanguageModel> model;
  std::function<void(Rng&)> init;     // fresh weights (nanoGPT's / nn.Embedding init)
  std::function<void()> reset_cache;  // forget the decoded context
  std::function<const float*(int32_t)> decode_step;  // feed one token; logits (V) for the next
  std::function<int()> cache_len;                    // tokens in the cache
};

// cfg.gpt.vocab_size must be set (from the data or the checkpoint).
BuiltModel build_model(const TrainConfig& cfg);

}  // namespace scratchgpt
