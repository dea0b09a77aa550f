// config_fuzz.cpp: libFuzzer harness for training configs (--config FILE, and the config inside
// every checkpoint): JSON text -> TrainConfig::apply_json -> validate. Whatever is accepted must
// survive a round trip through to_json unchanged.
#include <cstddef>
#include <cstdint>
#include <nlohmann/json.hpp>
#include <string>

#include "core/check.h"
#include "train/train_config.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace scratchgpt;
  nlohmann::json j;
  try {
    j = nlohmann::json::parse(data, data + size);
  } catch (const nlohmann::json::exception&) {
    return 0;  // not JSON: the CLI reports that before the config is read
  }
  try {
    TrainConfig c = preset_config("shakespeare-char-small");
    c.apply_json(j);
    c.validate();
    TrainConfig d;
    d.apply_json(c.to_json());
    if (d.to_json() != c.to_json()) __builtin_trap();
  } catch (const Error&) {
  }
  return 0;
}
