// model_factory.cpp: see model_factory.h.
#include "train/model_factory.h"

#include "core/check.h"
#include "nn/bigram.h"
#include "nn/gpt.h"

namespace scratchgpt {

BuiltModel build_model(const TrainConfig& cfg) {
  BuiltModel b;
  if (cfg.model == "bigram") {
    auto m = std::make_unique<Bigram>(cfg.gpt.vocab_size);
    Bigram* p = m.get();
    b.init = [p](Rng& rng) { p->init(rng); };
    b.reset_cache = [p] { p->reset_cache(); };
    b.decode_step = [p](int32_t tok) { return p->decode_step(tok); };
    b.cache_len = [p] { return p->cache_len(); };
    b.model = std::move(m);
    return b;
  }
  SG_CHECK(cfg.model == "gpt", "unknown model '", cfg.model, "': use 'gpt' or 'bigram'");
  auto m = std::make_unique<GPT>(cfg.gpt);
  GPT* p = m.get();
  b.init = [p](Rng& rng) { p->init(rng); };
  b.reset_cache = [p] { p->reset_cache(); };
  b.decode_step = [p](int32_t tok) { return p->decode_step(tok); };
  b.cache_len = [p] { return p->cache_len(); };
  b.model = std::move(m);
  return b;
}

}  // namespace scratchgpt
