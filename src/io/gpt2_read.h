// gpt2_read.h: a GPT-2-shaped model from another tool's files (gpt2_formats.h: Hugging Face,
// nanoGPT, llm.c) as its config and our tensors. Every tensor is checked (present, float32, its
// shape) and every key accounted for: a missing, unknown or misshapen tensor is an Error naming it.
// Hugging Face's and nanoGPT's safetensors are read through a memory map, so a model needs about
// its size in memory once (the tensors built), not twice. run/import.h writes the result as a
// checkpoint. Leaves out: Hugging Face's pytorch_model.bin, sharded model files.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

#include "core/safetensors.h"
#include "nn/gpt_config.h"
#include "tokenizer/tokenizer.h"

namespace scratchgpt {

struct Gpt2Weights {
  GPTConfig gpt;        // read from the file's config (dropout 0)
  SafeTensors weights;  // F32 tensors under our names (gpt_param_shapes), metadata empty
  std::string dataset;  // nanoGPT's ckpt.pt: its config['dataset'] ("" if it has none)
};

// input: a directory with config.json and model.safetensors, or that model.safetensors.
Gpt2Weights read_hf(const std::string& input);
// input: nanoGPT's train.py checkpoint (out/ckpt.pt: io/nanogpt_ckpt.h) or its state_dict as
// safetensors, found by content (llm.c's files are named, not misread); n_head: the head count
// when the file has no model_args metadata (0: take it from model_args).
Gpt2Weights read_nanogpt(const std::string& input, int n_head);
// The vocabulary of a nanoGPT model at input: tokenizer names nanoGPT's meta.pkl (or a directory
// holding one), "gpt2" or a BPE directory. With "gpt2" and a model of another vocabulary, the
// meta.pkl beside input is taken, else data/<config dataset>/meta.pkl (sample.py's place);
// a model of 50257 tokens or more takes GPT-2's.
Tokenizer nanogpt_tokenizer(const std::string& input, const Gpt2Weights& m,
                            const std::string& tokenizer);
// nanoGPT's padded vocabulary (50304 for GPT-2's 50257: the tokenizer's rounded up to a multiple
// of 64) is an Error saying it is not taken yet; other sizes are left to the caller's check.
// The model's vocabulary is the tokenizer's, or nanoGPT's padding of it (is_padded_vocab: the
// rows are kept, so the loss is nanoGPT's own; sampling draws only the tokenizer's ids); else an
// Error ending in fix.
void check_vocab_fits(const std::string& input, int model_vocab, const Tokenizer& tokenizer,
                      const std::string& fix);
// input: llm.c's model .bin (version 3, float32, or 5, bfloat16).
Gpt2Weights read_llmc(const std::string& input);

// llm.c's model file over its bytes (path names them in errors): the header's config, and the
// weights under our names into weights. The fuzzer's entry point.
GPTConfig parse_llmc_model(const uint8_t* data, size_t size, const std::string& path,
                           SafeTensors& weights);

}  // namespace scratchgpt
