// generate.h: autoregressive generation one token at a time through a Decoder, normally the
// model's KV cache. When the context fills the window, it keeps the last window/2 tokens and
// re-prefills them (one crop per window/2 new tokens instead of a full recompute per token); the
// prompt and the kept tokens go in through the decoder's prefill when it has one (all at once).
// RecomputeDecoder runs the whole window through forward() for every token: the slow, obviously
// right twin the KV-cache path is tested against. Leaves out: batching several prompts.
#pragma once

#include <cstdint>
#include <functional>
#include <vector>

#include "core/rng.h"
#include "nn/language_model.h"
#include "sample/sampler.h"

namespace scratchgpt {

struct Decoder {
  std::function<void()> reset;                // empty the context
  std::function<const float*(int32_t)> step;  // append a token; logits (V) for the next one
  // Optional: append n tokens at once (the same as n steps up to rounding); logits (V) after them.
  std::function<const float*(const int32_t*, int)> prefill;
  int window = 0;  // longest context the decoder may hold
  int vocab_size = 0;
};

// The slow twin: keeps the window's tokens and runs model.forward(1, len) for every step.
class RecomputeDecoder {
 public:
  RecomputeDecoder(LanguageModel& model, int window);
  Decoder decoder();

 private:
  LanguageModel& model_;
  int window_;
  std::vector<int32_t> tokens_;
};

// Feeds the prompt (its last `window` tokens), then samples num_tokens tokens, calling
// on_token(id, logits) for each right after it is drawn (logits: the distribution it was drawn
// from, before filtering). Returns the new tokens.
std::vector<int32_t> generate(Decoder& dec, const std::vector<int32_t>& prompt, int num_tokens,
                              const SamplingOptions& opt, Rng& rng,
                              const std::function<void(int32_t, const float*)>& on_token);

}  // namespace scratchgpt
