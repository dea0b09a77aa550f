// llmc_model_fuzz.cpp: libFuzzer harness for llm.c's model files ('import --format llmc':
// parse_llmc_model). Every accepted file gives exactly the tensors its config's GPT has, each of
// its shape.
#include <cstddef>
#include <cstdint>

#include "core/check.h"
#include "io/gpt2_read.h"
#include "nn/gpt.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  try {
    scratchgpt::SafeTensors weights;
    const scratchgpt::GPTConfig g = scratchgpt::parse_llmc_model(data, size, "fuzz", weights);
    const auto shapes = scratchgpt::gpt_param_shapes(g);
    if (weights.tensors.size() != shapes.size()) __builtin_trap();
    for (const auto& [name, shape] : shapes)
      if (!weights.has(name) || weights.get(name).shape != shape) __builtin_trap();
  } catch (const scratchgpt::Error&) {
  }
  return 0;
}
