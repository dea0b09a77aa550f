// gpt2_formats.h: the files GPT-2-shaped weights come in, and where each of our tensors
// (gpt_param_shapes: wte, wpe, blocks.N.ln_1.weight, ..., ln_f.bias, lm_head.weight if untied)
// lives in them:
//   hf       Hugging Face GPT-2: config.json + model.safetensors, keys wte.weight, h.N.attn.c_attn.weight,
//            ... (the hub's layout) or the same under "transformer." (save_pretrained's), Conv1D
//            weights stored (in, out), the h.N.attn.bias / masked_bias mask buffers ignored
//   nanogpt  nanoGPT's GPT state_dict as safetensors: transformer.wte.weight, transformer.h.N.*,
//            lm_head.weight (tied: a copy of wte), nn.Linear weights (out, in); its GPTConfig as
//            JSON in the metadata key model_args
//   llmc     llm.c's gpt2_124M.bin: 256 int32 of header (magic 20240326, version 3 = float32 or
//            5 = bfloat16, max_seq_len, vocab_size, num_layers, num_heads, channels,
//            padded_vocab_size), then wte (padded rows), wpe and each kind of block tensor
//            stacked over the layers, (out, in) weights, then ln_f
// gpt2_read.h and gpt2_write.h use these; this file names and orders, and holds the two helpers
// both directions share (a float32 tensor, a transpose). Leaves out: GPT-2 variants with other
// layouts (GPT-J, GPT-NeoX), half-precision safetensors.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "core/safetensors.h"
#include "nn/gpt_config.h"

namespace scratchgpt {

enum class WeightFormat { kScratchgpt, kHf, kNanoGpt, kLlmc };
// "scratchgpt", "hf", "nanogpt", "llmc"; an unknown name is an Error listing them.
WeightFormat weight_format_from_name(const std::string& name);

// Where one of our tensors is stored in another file.
struct ForeignTensor {
  std::string name;  // its key there
  bool transposed;   // stored (in, out) where ours is (out, in): Hugging Face's Conv1D weights
};
// prefix: "" (the hub's layout) or "transformer." (save_pretrained's).
ForeignTensor hf_tensor(const std::string& ours, const std::string& prefix);
ForeignTensor nanogpt_tensor(const std::string& ours);

// Hugging Face's config.json activation_function: gelu_new (GPT-2's tanh GELU), gelu (erf), relu.
const char* hf_activation_name(Activation a);
Activation activation_from_hf(const std::string& name);

inline constexpr int32_t kLlmcModelMagic = 20240326;
// llm.c's padded vocabulary: V rounded up to a multiple of 128 (50257 -> 50304).
int llmc_padded_vocab(int V);
// Our tensor names in the order llm.c's file holds them (wte first: its rows padded to
// llmc_padded_vocab).
std::vector<std::string> llmc_order(int n_layer);

// A float32 tensor of shape, zeros (to be filled, or a bias the model does not have).
StTensor f32_tensor(const std::vector<int64_t>& shape);
// dst (rows, cols) = src (cols, rows) transposed, float32; src may be unaligned. Hugging Face's
// Conv1D weights, read and written.
void transpose_f32(uint8_t* dst, const uint8_t* src, int64_t rows, int64_t cols);

}  // namespace scratchgpt
