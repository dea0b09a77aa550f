// gpt2_formats.cpp: see gpt2_formats.h.
#include "run/gpt2_formats.h"

#include "core/check.h"
#include "core/enum_names.h"

namespace scratchgpt {

namespace {

bool ends_with(const std::string& s, const std::string& suffix) {
  return s.size() >= suffix.size() && s.compare(s.size() - suffix.size(), suffix.size(), suffix) == 0;
}

// "blocks.3.attn.c_attn.weight" -> "h.3.attn.c_attn.weight"; wte/wpe get ".weight".
std::string gpt2_key(const std::string& ours) {
  if (ours == "wte" || ours == "wpe") return ours + ".weight";
  if (ours.rfind("blocks.", 0) == 0) return "h." + ours.substr(7);
  return ours;  // ln_f.weight, ln_f.bias, lm_head.weight
}

}  // namespace

WeightFormat weight_format_from_name(const std::string& name) {
  if (const auto f = enum_lookup<WeightFormat>(kWeightFormatNames, name)) return *f;
  fail("unknown --format '", name, "': choose hf (Hugging Face), nanogpt, llmc or scratchgpt");
}

ForeignTensor hf_tensor(const std::string& ours, const std::string& prefix) {
  const bool conv1d = ends_with(ours, "attn.c_attn.weight") || ends_with(ours, "attn.c_proj.weight") ||
                      ends_with(ours, "mlp.c_fc.weight") || ends_with(ours, "mlp.c_proj.weight");
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

}  // namespace scratchgpt
