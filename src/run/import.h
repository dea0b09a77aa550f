// import.h: what 'scratchgpt import' does: a GPT-2-shaped model from another tool's files
// (Hugging Face, nanoGPT, llm.c: gpt2_formats.h) into a weights-only scratchgpt checkpoint that
// eval, sample and train --init-from read. Every tensor is checked (present, float32, its shape)
// and every key accounted for: a missing, unknown or misshapen tensor is an Error naming it.
// Hugging Face's and nanoGPT's safetensors are read through a memory map, so importing a model
// needs about its size in memory once (the checkpoint being built), not twice.
// Leaves out: PyTorch's pickled .bin/.pt files (use their safetensors), sharded model files.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <string>

#include "core/safetensors.h"
#include "nn/gpt_config.h"

namespace scratchgpt {

struct ImportRequest {
  std::string format;  // hf, nanogpt or llmc
  // hf: a directory with config.json and model.safetensors (or that model.safetensors);
  // nanogpt: the .safetensors file; llmc: the .bin file
  std::string input;
  std::string out;                 // the checkpoint to write
  std::string tokenizer = "gpt2";  // gpt2 (data/gpt2/) or a directory with encoder.json, vocab.bpe
  int n_head = 0;                  // nanogpt files without model_args metadata: the head count
  bool overwrite = false;          // replace an existing --out (core/atomic_file.h has the rule)
};

void run_import(const ImportRequest& req, std::FILE* out);

// llm.c's model file over its bytes (path names them in errors): the header's config, and the
// weights under our names into weights. The fuzzer's entry point.
GPTConfig parse_llmc_model(const uint8_t* data, size_t size, const std::string& path,
                           SafeTensors& weights);

}  // namespace scratchgpt
