// gpt2_formats.cpp: see gpt2_formats.h.
#include "io/gpt2_formats.h"

#include <cstring>

#include "core/check.h"

namespace scratchgpt {

namespace {

// "blocks.3.attn.c_attn.weight" -> "h.3.attn.c_attn.weight"; wte/wpe get ".weight".
std::string gpt2_key(const std::string& ours) {
  if (ours == "wte" || ours == "wpe") return ours + ".weight";
  if (ours.rfind("blocks.", 0) == 0) return "h." + ours.substr(7);
  return ours;  // ln_f.weight, ln_f.bias, lm_head.weight
}

}  // namespace

WeightFormat weight_format_from_name(const std::string& name) {
  if (name == "scratchgpt") return WeightFormat::kScratchgpt;
  if (name == "hf") return WeightFormat::kHf;
  if (name == "nanogpt") return WeightFormat::kNanoGpt;
  if (name == "llmc") return WeightFormat::kLlmc;
  fail("unknown --format '", name, "': choose hf (Hugging Face), nanogpt, llmc or scratchgpt");
}

ForeignTensor hf_tensor(const std::string& ours, const std::string& prefix) {
  const bool conv1d = ours.ends_with("attn.c_attn.weight") ||
                      ours.ends_with("attn.c_proj.weight") || ours.ends_with("mlp.c_fc.weight") ||
                      ours.ends_with("mlp.c_proj.weight");
  const std::string key = gpt2_key(ours);
  return {key == "lm_head.weight" ? key : prefix + key, conv1d};
}

ForeignTensor nanogpt_tensor(const std::string& ours) {
  const std::string key = gpt2_key(ours);
  return {key == "lm_head.weight" ? key : "transformer." + key, false};
}

const char* hf_activation_name(Activation a) {
  switch (a) {
    case Activation::kGeluExact: return "gelu";
    case Activation::kRelu: return "relu";
    case Activation::kGelu: break;
  }
  return "gelu_new";
}

Activation activation_from_hf(const std::string& name) {
  if (name == "gelu_new" || name == "gelu_pytorch_tanh" || name == "gelu_fast")
    return Activation::kGelu;
  if (name == "gelu") return Activation::kGeluExact;
  if (name == "relu") return Activation::kRelu;
  fail("config.json's activation_function '", name,
       "' is not one scratchgpt has (gelu_new, gelu_pytorch_tanh, gelu, relu)");
}

int llmc_padded_vocab(int V) { return (V + 127) / 128 * 128; }

std::vector<std::string> llmc_order(int n_layer) {
  std::vector<std::string> names = {"wte", "wpe"};
  for (const char* kind : {"ln_1.weight", "ln_1.bias", "attn.c_attn.weight", "attn.c_attn.bias",
                           "attn.c_proj.weight", "attn.c_proj.bias", "ln_2.weight", "ln_2.bias",
                           "mlp.c_fc.weight", "mlp.c_fc.bias", "mlp.c_proj.weight",
                           "mlp.c_proj.bias"})
    for (int l = 0; l < n_layer; ++l) names.push_back("blocks." + std::to_string(l) + "." + kind);
  names.push_back("ln_f.weight");
  names.push_back("ln_f.bias");
  return names;
}

StTensor f32_tensor(const std::vector<int64_t>& shape) {
  StTensor t;
  t.dtype = "F32";
  t.shape = shape;
  t.bytes.assign(static_cast<size_t>(t.numel()) * sizeof(float), 0);
  return t;
}

void transpose_f32(uint8_t* dst, const uint8_t* src, int64_t rows, int64_t cols) {
  for (int64_t r = 0; r < rows; ++r)
    for (int64_t c = 0; c < cols; ++c)
      std::memcpy(dst + (r * cols + c) * 4, src + (c * rows + r) * 4, 4);
}

}  // namespace scratchgpt
