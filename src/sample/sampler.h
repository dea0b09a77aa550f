// sampler.h: from next-token logits to a sampled token, as nanoGPT's generate():
//   logits / temperature -> keep the top-k -> keep the top-p nucleus -> softmax -> multinomial.
// Filtered tokens get probability exactly 0. Leaves out: repetition penalties, beam search.
#pragma once

#include <cstdint>
#include <vector>

#include "core/exec_context.h"
#include "core/rng.h"

namespace scratchgpt {

struct SamplingOptions {
  float temperature = 1.0f;  // > 0; lower is more conservative
  int top_k = 0;             // 0: all tokens; else the k most likely (clamped to V)
  float top_p = 1.0f;        // (0, 1]; 1: all tokens; else the smallest set with mass >= top_p
  int vocab_limit = 0;       // 0: every row of the model; else only ids below it are drawn (a
                             // padded vocabulary's extra rows, is_padded_vocab, never)
  void validate() const;     // one-line Errors naming the fix
};

// probs (V) = the distribution sampled from: softmax of the filtered, tempered logits (V), on the
// host (logits and probs are host memory), with ex's SIMD level.
void sampling_probs(const ExecContext& ex, const float* logits, int V, const SamplingOptions& opt,
                    float* probs);

// Draws one token from sampling_probs with rng.multinomial (num_samples 1).
int32_t sample_token(const ExecContext& ex, const float* logits, int V, const SamplingOptions& opt,
                     Rng& rng, std::vector<float>& scratch);

}  // namespace scratchgpt
