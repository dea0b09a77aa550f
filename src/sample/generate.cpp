// generate.cpp: see generate.h.
#include "sample/generate.h"

#include <algorithm>

#include "core/check.h"

namespace scratchgpt {

const float* RecomputeModel::decode_step(int32_t token) {
  SG_CHECK(cache_len() < model_.block_size(), "RecomputeModel: the context is full (",
           model_.block_size(), " tokens)");
  tokens_.push_back(token);
  const int T = cache_len();
  model_.forward(tokens_.data(), nullptr, 1, T, nullptr);
  const Tensor logits = model_.logits();  // (1, T, V)
  return logits.data + static_cast<int64_t>(T - 1) * model_.vocab_size();
}

std::vector<int32_t> generate(LanguageModel& model, int window, const std::vector<int32_t>& prompt,
                              int num_tokens, const SamplingOptions& opt, Rng& rng,
                              const std::function<void(int32_t, const float*)>& on_token,
                              ContextRule rule, int32_t stop_token) {
  SG_CHECK(!prompt.empty(), "the prompt is empty: give at least one character");
  SG_CHECK(window >= 2, "the context window must hold at least 2 tokens, got ", window);
  SG_CHECK(window <= model.block_size(), "the context window (", window,
           ") is longer than the model's context (", model.block_size(), ")");
  SG_CHECK(num_tokens >= 0, "the number of tokens must be >= 0, got ", num_tokens);
  opt.validate();
  const int V = model.vocab_size();
  const int drawn = opt.vocab_limit > 0 ? std::min(V, opt.vocab_limit) : V;  // ids drawn from
  std::vector<int32_t> seq(prompt);  // the whole text so far
  std::vector<float> scratch, logits(V);
  // Prefill: idx_cond = idx[:, -block_size:]
  model.reset_cache();
  const size_t first = seq.size() > static_cast<size_t>(window) ? seq.size() - window : 0;
  const float* l = model.prefill(seq.data() + first, static_cast<int>(seq.size() - first));
  int held = static_cast<int>(seq.size() - first);  // tokens in the decoder
  std::vector<int32_t> out;
  out.reserve(num_tokens);
  for (int n = 0; n < num_tokens; ++n) {
    std::copy(l, l + V, logits.begin());
    const int32_t tok = sample_token(model.exec(), logits.data(), drawn, opt, rng, scratch);
    seq.push_back(tok);
    out.push_back(tok);
    if (on_token) on_token(tok, logits.data());
    if (n + 1 == num_tokens || tok == stop_token) break;  // no need to feed the last token
    if (held == window && rule == ContextRule::kSlide) {
      // nanoGPT: idx_cond = idx[:, -block_size:], the whole window again for every token.
      model.reset_cache();
      l = model.prefill(seq.data() + seq.size() - window, window);
      continue;
    }
    if (held == window) {
      // Context full: keep the last window/2 tokens before the new one and re-prefill them
      // together with it.
      const int keep = window / 2;
      model.reset_cache();
      l = model.prefill(seq.data() + seq.size() - 1 - keep, keep + 1);
      held = keep + 1;
      continue;
    }
    l = model.decode_step(tok);
    ++held;
  }
  return out;
}

}  // namespace scratchgpt
