// config_fuzz.cpp: libFuzzer harness for training configs (--config FILE, and the config inside
// every checkpoint), in both forms train reads: JSON text -> TrainConfig::apply_json -> validate,
// and nanoGPT's `key = value` Python lines (parse_nanogpt_config -> canonical_config_keys ->
// apply_json). Whatever is accepted must survive a round trip through to_json unchanged.
#include <cstddef>
#include <cstdint>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "core/check.h"
#include "train/nanogpt_config.h"
#include "train/train_config.h"

namespace {

void apply_and_round_trip(const nlohmann::json& j) {
  using namespace scratchgpt;
  try {
    TrainConfig c = preset_config("shakespeare-char-small");
    c.apply_json(j);
    c.validate();
    TrainConfig d;
    d.apply_json(c.to_json());
    if (d.to_json() != c.to_json()) __builtin_trap();
  } catch (const Error&) {
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace scratchgpt;
  try {
    apply_and_round_trip(nlohmann::json::parse(data, data + size));
  } catch (const nlohmann::json::exception&) {
    // not JSON: the CLI reports that before the config is read
  }
  try {
    const nlohmann::json file =
        parse_nanogpt_config(std::string(reinterpret_cast<const char*>(data), size), "fuzz");
    std::vector<std::string> ignored, unknown;
    const nlohmann::json ours = canonical_config_keys(file, ignored, unknown, "fuzz");
    if (unknown.empty()) apply_and_round_trip(ours);
  } catch (const Error&) {
  }
  return 0;
}
