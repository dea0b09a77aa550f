// export.h: what 'scratchgpt export' does: a GPT checkpoint's weights (no optimizer state) in the
// files other tools read (gpt2_formats.h):
//   hf          a directory transformers' GPT2LMHeadModel.from_pretrained reads: config.json,
//               model.safetensors in save_pretrained's layout, and, for a BPE model, the tokenizer
//               as vocab.json + merges.txt (GPT-2's encoder.json and vocab.bpe under their names)
//   nanogpt     a safetensors of nanoGPT's GPT state_dict (load_state_dict(strict=True) takes it),
//               nanoGPT's GPTConfig in the metadata key model_args
//   llmc        llm.c's gpt2_124M.bin format (version 3, float32)
//   scratchgpt  a weights-only scratchgpt checkpoint (a third of a training checkpoint's size)
// What another format cannot hold is an Error naming it (an untied head for nanoGPT and llm.c,
// a ReLU MLP for nanoGPT and llm.c, whose MLPs are GELU); a model without biases gets zero
// biases where the format always has them (Hugging Face, llm.c), which computes the same.
// An existing --out is replaced only with overwrite, and never when it is the checkpoint read;
// the hf directory appears complete or not at all (core/atomic_file.h: UserOutput, AtomicDir).
// Leaves out: PyTorch's pickled formats, half precision.
#pragma once

#include <cstdio>
#include <string>

namespace scratchgpt {

struct ExportRequest {
  std::string format;      // hf, nanogpt, llmc or scratchgpt
  std::string checkpoint;  // a scratchgpt checkpoint of a GPT
  std::string out;         // hf: a directory; the others: a file
  bool overwrite = false;  // replace an existing --out (core/atomic_file.h has the rule)
};

void run_export(const ExportRequest& req, std::FILE* out);

}  // namespace scratchgpt
