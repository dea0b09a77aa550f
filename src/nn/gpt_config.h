// gpt_config.h: GPTConfig, the shape and choices of a GPT: the lecture's model by default
// (ReLU feed-forward, separate output head, biases), GPT-2's choices as options.
#pragma once

#include <string>
#include <utility>

#include "core/check.h"
#include "core/enum_names.h"

namespace scratchgpt {

// nanoGPT's padded vocabulary: a model of model_vocab rows for a tokenizer of vocab tokens,
// rounded up to a multiple of 64 (50304 for GPT-2's 50257, what nanoGPT's train.py builds). The
// rows past the tokenizer's are trained (the softmax runs over all of them) but never drawn.
inline bool is_padded_vocab(int model_vocab, int vocab) {
  return model_vocab > vocab && model_vocab % 64 == 0 && model_vocab - vocab < 64;
}

// The MLP's nonlinearity: the lecture's ReLU, GPT-2's tanh approximation of GELU, or the exact
// (erf) GELU of nanoGPT's nn.GELU().
enum class Activation { kRelu, kGelu, kGeluExact };
inline constexpr std::pair<Activation, const char*> kActivationNames[] = {
    {Activation::kRelu, "relu"},
    {Activation::kGelu, "gelu"},
    {Activation::kGeluExact, "gelu-exact"}};
// "gelu" -> Activation::kGelu; an Error listing the choices otherwise.
inline Activation parse_activation(const std::string& name) {
  return enum_from_name<Activation>(kActivationNames, name, "activation");
}

struct GPTConfig {
  int vocab_size = 65;   // V
  int block_size = 256;  // longest context T
  int n_layer = 6;       // L
  int n_head = 6;        // NH
  int n_embd = 384;      // C; head size HS = C / NH
  float dropout = 0.0f;  // on embeddings, attention weights, residual branches (train only)
  bool bias = true;      // biases in Linear and LayerNorm layers
  bool tied = false;     // output head shares the token embedding wte (GPT-2)
  Activation activation = Activation::kRelu;

  // Every impossible combination is a one-line error that names the fix.
  void validate() const {
    SG_CHECK(vocab_size > 0, "vocab_size must be positive, got ", vocab_size);
    SG_CHECK(block_size > 0, "block_size (context length) must be positive, got ", block_size);
    SG_CHECK(n_layer > 0, "n_layer must be positive, got ", n_layer);
    SG_CHECK(n_head > 0, "n_head must be positive, got ", n_head);
    SG_CHECK(n_embd > 0, "n_embd must be positive, got ", n_embd);
    SG_CHECK(n_embd % n_head == 0, "n_embd (", n_embd, ") must be divisible by n_head (", n_head,
             "): change one of them");
    SG_CHECK(dropout >= 0.0f && dropout < 1.0f, "dropout must be in [0, 1), got ", dropout);
  }
};

}  // namespace scratchgpt
