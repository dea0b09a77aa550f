// generate.cpp: see generate.h.
#include "sample/generate.h"

#include <algorithm>

#include "core/check.h"

namespace scratchgpt {

namespace {

// Appends tokens [first, last) to the decoder; the logits after the last one.
const float* feed(Decoder& dec, const int32_t* first, const int32_t* last) {
  if (first == last) return nullptr;
  if (dec.prefill) return dec.prefill(first, static_cast<int>(last - first));
  const float* l = nullptr;
  for (const int32_t* t = first; t != last; ++t) l = dec.step(*t);
  return l;
}

}  // namespace

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
  const float* l = feed(dec, seq.data() + first, seq.data() + seq.size());
  int held = static_cast<int>(seq.size() - first);  // tokens in the decoder
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
      // Context full: keep the last window/2 tokens before the new one and re-prefill them
      // together with it.
      const int keep = dec.window / 2;
      dec.reset();
      l = feed(dec, seq.data() + seq.size() - 1 - keep, seq.data() + seq.size());
      held = keep + 1;
      continue;
    }
    l = dec.step(tok);
    ++held;
  }
  return out;
}

}  // namespace scratchgpt
