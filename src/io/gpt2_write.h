// gpt2_write.h: a GPT checkpoint's weights (no optimizer state) in the files other tools read
// (gpt2_formats.h):
//   hf       a directory transformers' GPT2LMHeadModel.from_pretrained reads: config.json,
//            model.safetensors in save_pretrained's layout, and, for a BPE model, the tokenizer
//            as vocab.json + merges.txt (GPT-2's encoder.json and vocab.bpe under their names)
//   nanogpt  a safetensors of nanoGPT's GPT state_dict (load_state_dict(strict=True) takes it
//            on PyTorch 1.x: each layer's attn.bias causal mask (1, 1, T, T) included, the
//            buffer nanoGPT registers without scaled_dot_product_attention), nanoGPT's
//            GPTConfig in the metadata key model_args
//   llmc     llm.c's gpt2_124M.bin format (version 3, float32)
// What another format cannot hold is an Error naming it (an untied head for nanoGPT and llm.c,
// a ReLU MLP for nanoGPT and llm.c, whose MLPs are GELU); a model without biases gets zero
// biases where the format always has them (Hugging Face, llm.c), which computes the same.
// The checkpoint's tensors are checked by the caller (run/export.h). Leaves out: PyTorch's
// pickled formats, half precision.
#pragma once

#include <cstdio>
#include <string>
#include <vector>

#include "core/atomic_file.h"
#include "io/checkpoint.h"

namespace scratchgpt {

// The files write_hf writes: an earlier export holding only these may be replaced (--overwrite).
const std::vector<std::string>& hf_file_names();
// All or nothing: the files go to dir's temporary directory, which replaces it when complete.
void write_hf(const Checkpoint& ck, AtomicDir& dir);
// out: where the note on nanoGPT's exact GELU goes (a tanh-GELU model).
void write_nanogpt(const Checkpoint& ck, const std::string& path, const UserOutput& rule,
                   std::FILE* out);
void write_llmc(const Checkpoint& ck, const std::string& path, const UserOutput& rule);

}  // namespace scratchgpt
