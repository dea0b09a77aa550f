// train_config_test.cpp: the presets hold nanoGPT's recipes, JSON round-trips every field, and
// impossible configs are one-line errors naming the fix.
#include "train/train_config.h"

#include <gtest/gtest.h>

#include <algorithm>

#include "core/check.h"
#include "test_util.h"

using namespace scratchgpt;

namespace {
using test::error_of;
}  // namespace

TEST(TrainConfig, PresetsAreNanoGPTsRecipes) {
  const TrainConfig big = preset_config("shakespeare-char");
  EXPECT_EQ(big.gpt.n_layer, 6);
  EXPECT_EQ(big.gpt.n_head, 6);
  EXPECT_EQ(big.gpt.n_embd, 384);
  EXPECT_EQ(big.gpt.block_size, 256);
  EXPECT_EQ(big.batch_size, 64);
  EXPECT_FLOAT_EQ(big.gpt.dropout, 0.2f);
  EXPECT_EQ(big.lr, 1e-3);
  EXPECT_EQ(big.min_lr, 1e-4);
  EXPECT_EQ(big.max_iters, 5000);
  EXPECT_EQ(big.lr_decay_iters, 5000);
  EXPECT_EQ(big.warmup_iters, 100);
  EXPECT_FLOAT_EQ(big.beta2, 0.99f);
  EXPECT_FLOAT_EQ(big.weight_decay, 0.1f);
  EXPECT_FLOAT_EQ(big.grad_clip, 1.0f);
  EXPECT_EQ(big.eval_interval, 250);
  EXPECT_EQ(big.eval_iters, 200);
  EXPECT_EQ(big.gpt.activation, Activation::kGelu);
  EXPECT_TRUE(big.gpt.tied);
  EXPECT_FALSE(big.gpt.bias);
  const TrainConfig small = preset_config("shakespeare-char-small");
  EXPECT_EQ(small.gpt.n_layer, 4);
  EXPECT_EQ(small.gpt.n_embd, 128);
  EXPECT_EQ(small.gpt.block_size, 64);
  EXPECT_EQ(small.batch_size, 12);
  EXPECT_EQ(small.gpt.dropout, 0.0f);
  EXPECT_EQ(small.max_iters, 2000);
  EXPECT_EQ(small.eval_iters, 20);
  // nanoGPT's random stream for nanoGPT's recipes; the lecture's bigram keeps the split one.
  EXPECT_EQ(small.rng_stream, RngStream::kNanoGpt);
  EXPECT_EQ(big.rng_stream, RngStream::kNanoGpt);
  EXPECT_EQ(preset_config("bigram").rng_stream, RngStream::kSplit);
  EXPECT_EQ(preset_config("bigram").model, ModelKind::kBigram);
  EXPECT_NE(error_of([] { preset_config("gpt5"); }).find("shakespeare-char-small"),
            std::string::npos);
}

TEST(TrainConfig, Gpt2PresetsAreGpt2WithNanoGPTsTrainGpt2) {
  struct Shape {
    const char* name;
    int L, NH, C;
  };
  for (const Shape& s : {Shape{"gpt2", 12, 12, 768}, {"gpt2-medium", 24, 16, 1024},
                         {"gpt2-large", 36, 20, 1280}, {"gpt2-xl", 48, 25, 1600}}) {
    SCOPED_TRACE(s.name);
    const TrainConfig c = preset_config(s.name);
    EXPECT_EQ(c.preset, s.name);
    EXPECT_EQ(c.model, ModelKind::kGpt);
    EXPECT_EQ(c.gpt.n_layer, s.L);
    EXPECT_EQ(c.gpt.n_head, s.NH);
    EXPECT_EQ(c.gpt.n_embd, s.C);
    EXPECT_EQ(c.gpt.vocab_size, 50257);
    EXPECT_EQ(c.gpt.block_size, 1024);
    EXPECT_TRUE(c.gpt.bias);
    EXPECT_TRUE(c.gpt.tied);
    EXPECT_EQ(c.gpt.activation, Activation::kGelu);
    EXPECT_EQ(c.gpt.dropout, 0.0f);
    EXPECT_EQ(c.lr, 6e-4);
    EXPECT_EQ(c.min_lr, 6e-5);
    EXPECT_EQ(c.warmup_iters, 2000);
    EXPECT_EQ(c.max_iters, 600000);
    EXPECT_EQ(c.lr_decay_iters, 600000);
    EXPECT_FLOAT_EQ(c.weight_decay, 0.1f);
    EXPECT_FLOAT_EQ(c.beta1, 0.9f);
    EXPECT_FLOAT_EQ(c.beta2, 0.95f);
    EXPECT_FLOAT_EQ(c.grad_clip, 1.0f);
    EXPECT_EQ(c.batch_size, 12);
    EXPECT_EQ(c.grad_accum, 40);
    EXPECT_EQ(c.eval_interval, 1000);
    EXPECT_EQ(c.eval_iters, 200);
    EXPECT_EQ(c.rng_stream, RngStream::kSplit);
    EXPECT_NO_THROW(c.validate());
  }
}

TEST(TrainConfig, JsonRoundTripAndOverrides) {
  TrainConfig a = preset_config("shakespeare-char");
  a.seed = 42, a.lr = 3e-4, a.gpt.vocab_size = 77, a.grad_accum = 3;
  TrainConfig b;
  b.apply_json(a.to_json());
  EXPECT_EQ(b.to_json(), a.to_json());
  b.apply_json({{"n_layer", 2}, {"dropout", 0.0}});
  EXPECT_EQ(b.gpt.n_layer, 2);
  EXPECT_EQ(b.gpt.n_head, 6);  // untouched
  EXPECT_NE(error_of([&] { b.apply_json({{"n_layers", 2}}); }).find("n_layers"), std::string::npos);
  EXPECT_NE(error_of([&] {
              b.apply_json({{"n_layer", "two"}});
            }).find("wrong type"),
            std::string::npos);
}

TEST(TrainConfig, ImpossibleConfigsAreErrors) {
  auto err = [](const nlohmann::json& j) {
    TrainConfig c = preset_config("shakespeare-char-small");
    return error_of([&] {
      c.apply_json(j);  // names are checked here (enums), values in validate
      c.validate();
    });
  };
  EXPECT_EQ(err(nlohmann::json::object()), "");
  EXPECT_NE(err({{"n_head", 5}}).find("divisible"), std::string::npos);
  EXPECT_NE(err({{"batch_size", 0}}).find("batch size"), std::string::npos);
  EXPECT_NE(err({{"block_size", 0}}).find("block_size"), std::string::npos);
  EXPECT_NE(err({{"lr", -1.0}}).find("lr"), std::string::npos);
  EXPECT_NE(err({{"warmup_iters", 3000}}).find("lr_decay_iters"), std::string::npos);
  EXPECT_NE(err({{"grad_accum", 0}}).find("grad_accum"), std::string::npos);
  EXPECT_NE(err({{"activation", "tanh"}}).find("activation"), std::string::npos);
  EXPECT_NE(err({{"matmul", "blas"}}).find("choose auto, own, onednn or mixed"), std::string::npos);
  EXPECT_EQ(err({{"matmul", "own"}}), "");
  EXPECT_EQ(err({{"matmul", "auto"}}), "");
  EXPECT_EQ(err({{"activation", "gelu-exact"}}), "");
  EXPECT_NE(err({{"rng_stream", "torch"}}).find("rng_stream"), std::string::npos);
  EXPECT_EQ(err({{"rng_stream", "split"}}), "");
}

// A checkpoint written before rng_stream existed has no such key: it resumes on "split".
TEST(TrainConfig, ConfigsWithoutRngStreamMeanTheSplitStream) {
  nlohmann::json old = preset_config("shakespeare-char").to_json();
  old.erase("rng_stream");
  TrainConfig c;
  c.apply_json(old);
  EXPECT_EQ(c.rng_stream, RngStream::kSplit);
}

// The field table is the one description of the hyperparameters: every TrainConfig key is a row,
// and every row's value goes through a flag's text and back unchanged.
TEST(TrainConfig, EveryFieldRoundTripsThroughTheTableAndFlagText) {
  TrainConfig a = preset_config("shakespeare-char");
  a.seed = 42, a.lr = 3e-4, a.gpt.vocab_size = 77, a.grad_accum = 3;
  const nlohmann::json j = a.to_json();
  EXPECT_EQ(j.size(), config_fields().size());
  for (const ConfigField& f : config_fields()) {
    SCOPED_TRACE(f.key);
    ASSERT_TRUE(j.contains(f.key));
    const nlohmann::json v = f.get(a);
    const std::string text = v.is_string() ? v.get<std::string>() : v.dump();
    TrainConfig b;
    f.set(b, config_value_from_text(f, text));
    EXPECT_EQ(f.get(b), v);
  }
  const ConfigField& n_layer = *std::find_if(config_fields().begin(), config_fields().end(),
                                            [](const ConfigField& f) { return f.key == std::string("n_layer"); });
  EXPECT_NE(error_of([&] { config_value_from_text(n_layer, "four"); }).find("--n-layer"),
            std::string::npos);
}
