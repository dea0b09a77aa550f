// generate.cpp: see generate.h.
#include "sample/generate.h"

#include <algorithm>

#include "core/check.h"

namespace scratchgpt {

RecomputeDecoder::RecomputeDecoder(LanguageModel& model, int window)
    : model_(model), window_(window) {}

Decoder RecomputeDecoder::decoder() {
  Decoder d;
  d.window = window_;
  d.vocab_size = model_.vocab_size();
  d.reset = [this] { tokens_.clear(); };
  d.step = [this](int32_t tok) -> const float* {
    SG_CHECK(static_cast<int>(tokens_.size()) < window_, "RecomputeDecoder: window full");
    tokens_.push_back(tok);
    const int T = static_cast<int>(tokens_.size());
    model_.forward(tokens_.data(), nullptr, 1, T, nullptr);
    const Tensor logits = model_.logits();  // (1, T, V)
    return logits.data + static_cast<int64_t>(T - 1) * model_.vocab_size();
  };
  return d;
}

std::vector<int32_t> generate(Decoder& dec, const std::vector<int32_t>& prompt, int num_tokens,
                              const SamplingOptions& opt, Rng& rng,
                              const std::function<void(int32_t, const float*)>& on_token) {
  SG_CHECK(!prompt.empty(), "the prompt is empty: give at least one character");
  SG_CHECK(dec.window >= 2, "the context window must hold at least 2 tokens, got ", dec.window);
  SG_CHECK(num_tokens >= 0, "the number of tokens must be >= 0, got ", num_tokens);
  opt.validate();
  const int V = dec.vocab_size;
  std::vector<int32_t> seq(prompt);  // the whole text so far
  std::vector<float> scratch, logits(V);
  // Prefill: idx_cond = idx[:, -block_size:]
  dec.reset();
  const size_t first = seq.size() > static_cast<size_t>(dec.window) ? seq.size() - dec.window : 0;
  int held = 0;  // tokens in the decoder
  const float* l = nullptr;
  for (size_t i = first; i < seq.size(); ++i, ++held) l = dec.step(seq[i]);
  std::vector<int32_t> out;
  out.reserve(num_tokens);
  for (int n = 0; n < num_tokens; ++n) {
    std::copy(l, l + V, logits.begin());
    const int32_t tok = sample_token(logits.data(), V, opt, rng, scratch);
    seq.push_back(tok);
    out.push_back(tok);
    if (on_token) on_token(tok, logits.data());
    if (n + 1 == num_tokens) break;  // no need to feed the last token
    if (held == dec.window) {
      // Context full: keep the last window/2 tokens (the new one excluded) and re-prefill.
      const int keep = dec.window / 2;
      dec.reset();
      held = 0;
      for (size_t i = seq.size() - 1 - keep; i < seq.size() - 1; ++i, ++held) dec.step(seq[i]);
    }
    l = dec.step(tok);
    ++held;
  }
  return out;
}

}  // namespace scratchgpt
