// import.h: what 'scratchgpt import' does: a GPT-2-shaped model from another tool's files
// (Hugging Face, nanoGPT, llm.c: io/gpt2_read.h reads them) into a weights-only scratchgpt
// checkpoint (io/checkpoint.h) that eval, sample and train --init-from read. This file handles
// the request: the flags, the output rule, the tokenizer, finite weights.
// Leaves out: Hugging Face's pytorch_model.bin (use its safetensors), sharded model files.
#pragma once

#include <cstdio>
#include <string>

namespace scratchgpt {

struct ImportRequest {
  std::string format;  // hf, nanogpt or llmc
  // hf: a directory with config.json and model.safetensors (or that model.safetensors);
  // nanogpt: train.py's ckpt.pt or a state_dict as .safetensors; llmc: the .bin file
  std::string input;
  std::string out;                 // the checkpoint to write
  // gpt2 (data/gpt2/), a directory with encoder.json, vocab.bpe, or (nanogpt) nanoGPT's meta.pkl
  // or its directory; a nanoGPT char model finds the meta.pkl beside it by itself
  std::string tokenizer = "gpt2";
  int n_head = 0;                  // nanogpt files without model_args metadata: the head count
  bool overwrite = false;          // replace an existing --out (core/atomic_file.h has the rule)
};

void run_import(const ImportRequest& req, std::FILE* out);

}  // namespace scratchgpt
