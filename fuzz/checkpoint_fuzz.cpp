// checkpoint_fuzz.cpp: libFuzzer harness for the checkpoint reader past its checksum. The input is
// parsed as safetensors; its checksum is then recomputed (a fuzzer cannot forge one), so the
// config, vocabulary, counters, state tensors and weights behind it are what gets fuzzed, down to
// restoring the weights into the model the config describes (when that model is small).
#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>

#include "core/check.h"
#include "core/safetensors.h"
#include "io/checkpoint.h"
#include "run/model_factory.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace scratchgpt;
  try {
    SafeTensors st = parse_safetensors(data, size, "fuzz");
    st.metadata["checksum"] = std::to_string(st.checksum());
    const Checkpoint ck = checkpoint_from(std::move(st), "fuzz");
    if (weight_bytes(ck.cfg) > 64.0 * 1024 * 1024) return 0;  // stay within the fuzzer's memory
    if (ck.cfg.model == ModelKind::kGpt && ck.cfg.gpt.block_size > 4096) return 0;
    const std::unique_ptr<LanguageModel> model = build_model(ck.cfg);
    restore_params(ck, *model, /*with_optimizer=*/!ck.weights_only);
  } catch (const Error&) {
  }
  return 0;
}
