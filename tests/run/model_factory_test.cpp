// model_factory_test.cpp: param_count, the parameters of a config counted from its shape, equals
// the built model's num_params() (small models, every bias/tied combination), and GPT-2's presets
// count the published figures (124,439,808 for gpt2 with tied embeddings and a 1024 context;
// nanoGPT's README: 124M, 350M, 774M, 1558M) without building the big models.
#include "run/model_factory.h"

#include <gtest/gtest.h>

#include <cmath>

using namespace scratchgpt;

TEST(ModelFactory, ParamCountIsTheBuiltModels) {
  for (const bool bias : {false, true})
    for (const bool tied : {false, true}) {
      TrainConfig cfg = preset_config("shakespeare-char-small");
      cfg.gpt.vocab_size = 37, cfg.gpt.block_size = 9, cfg.gpt.n_layer = 3, cfg.gpt.n_head = 2;
      cfg.gpt.n_embd = 12, cfg.gpt.bias = bias, cfg.gpt.tied = tied;
      EXPECT_EQ(param_count(cfg), static_cast<double>(build_model(cfg)->num_params()))
          << "bias " << bias << " tied " << tied;
    }
  TrainConfig bigram = preset_config("bigram");
  bigram.gpt.vocab_size = 65;
  EXPECT_EQ(param_count(bigram), static_cast<double>(build_model(bigram)->num_params()));
}

TEST(ModelFactory, Gpt2PresetsCountThePublishedParameters) {
  struct Published {
    const char* preset;
    double exact;       // Hugging Face's num_parameters() of openai-community/<preset>
    double readme_m;    // nanoGPT's README, millions
  };
  for (const Published& p : {Published{"gpt2", 124439808, 124}, {"gpt2-medium", 354823168, 350},
                             {"gpt2-large", 774030080, 774}, {"gpt2-xl", 1557611200, 1558}}) {
    const TrainConfig cfg = preset_config(p.preset);
    EXPECT_EQ(param_count(cfg), p.exact) << p.preset;
    // The README rounds (gpt2-medium's 354.8M is its "350M").
    EXPECT_LT(std::abs(param_count(cfg) / 1e6 - p.readme_m) / p.readme_m, 0.015) << p.preset;
  }
}
