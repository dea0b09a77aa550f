// model_factory.cpp: see model_factory.h.
#include "run/model_factory.h"

#include "core/check.h"
#include "core/cpu_features.h"
#include "nn/bigram.h"
#include "nn/gpt.h"

namespace scratchgpt {

double param_count(const TrainConfig& cfg) {
  const double V = cfg.gpt.vocab_size, C = cfg.gpt.n_embd, L = cfg.gpt.n_layer;
  const double T = cfg.gpt.block_size, b = cfg.gpt.bias ? 1.0 : 0.0;
  if (cfg.model == ModelKind::kBigram) return V * V;
  const double block = 2 * (C + b * C)          // ln_1, ln_2
                       + 3 * C * C + b * 3 * C  // attn.c_attn
                       + C * C + b * C          // attn.c_proj
                       + 4 * C * C + b * 4 * C  // mlp.c_fc
                       + 4 * C * C + b * C;     // mlp.c_proj
  // wte, wpe, the blocks, ln_f, the head when not tied to wte.
  return V * C + T * C + L * block + (C + b * C) + (cfg.gpt.tied ? 0.0 : V * C);
}

double weight_bytes(const TrainConfig& cfg) { return 4.0 * param_count(cfg); }

double training_bytes_lower_bound(const TrainConfig& cfg) {
  const double N = static_cast<double>(cfg.batch_size) * cfg.gpt.block_size;  // B * T
  const double V = cfg.gpt.vocab_size, C = cfg.gpt.n_embd, L = cfg.gpt.n_layer;
  // The floats GPT::layout plans (nn/gpt.cpp, block.cpp, causal_self_attention.cpp, mlp.cpp),
  // less the attention matrices, dropout masks and small per-row statistics: each block keeps 16
  // (N, C) (ln_1, qkv 3, y, x1, ln_2, fc 4, act 4, x2), the blocks share a backward scratch of 17
  // (c_proj, dqkv 3, dy, dproj; c_proj, dact 4, dfc 4, dproj; dln), GPT itself 6 (emb, ln_f,
  // dlnf, dres 2, demb) and 3 (N, V) (logits, probs, dlogits). A bigram: logits, probs, dlogits.
  const double acts =
      cfg.model == ModelKind::kBigram ? 3 * N * V : (16 * L + 17 + 6) * N * C + 3 * N * V;
  return 4.0 * (4.0 * param_count(cfg) + acts);
}

void check_fits_in_memory(double bytes, const char* what, const char* fix) {
  const double ram = static_cast<double>(physical_memory_bytes());
  if (ram > 0 && bytes > ram)
    fail(what, " needs at least ", format_bytes(bytes), " but this machine has ",
         format_bytes(ram), " of memory: ", fix);
}

std::unique_ptr<LanguageModel> build_model(const TrainConfig& cfg, const ExecContext& ctx) {
  check_fits_in_memory(weight_bytes(cfg), "the model's weights",
                       "lower --n-embd or --n-layer (or the vocabulary)");
  switch (cfg.model) {
    case ModelKind::kBigram:
      return std::make_unique<Bigram>(cfg.gpt.vocab_size, ctx);
    case ModelKind::kGpt:
      break;
  }
  return std::make_unique<GPT>(cfg.gpt, ctx);
}

}  // namespace scratchgpt
