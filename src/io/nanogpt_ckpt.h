// nanogpt_ckpt.h: nanoGPT's out/ckpt.pt as train.py saves it (torch.save's zip: data.pkl and one
// entry per storage), read through core/zip_reader.h and the restricted unpickler core/pickle.h:
// the model's state_dict as float32 tensors (float32, bfloat16, float16 and float64 storages;
// contiguous tensors), model_args and config as JSON. A bare state_dict saved by torch.save is
// read too. Leaves out: the optimizer state, iter_num and best_val_loss (an import or
// --init-from starts a new run), legacy (pre-1.6, non-zip) torch.save files.
#pragma once

#include <nlohmann/json.hpp>
#include <string>

#include "core/safetensors.h"

namespace scratchgpt {

struct TorchStateDict {
  SafeTensors tensors;                                   // F32, keys as saved
  nlohmann::json model_args = nlohmann::json::object();  // {} when the file has none
  nlohmann::json config = nlohmann::json::object();
};

// data, size: the whole file; path names it in errors.
TorchStateDict parse_nanogpt_ckpt(const uint8_t* data, size_t size, const std::string& path);
TorchStateDict read_nanogpt_ckpt(const std::string& path);

}  // namespace scratchgpt
