// zip_fuzz.cpp: libFuzzer harness for the zip reader (core/zip_reader.h) of PyTorch's ckpt.pt
// files. Any input must list its entries or be refused with an Error; every accepted entry lies
// inside the input (read in full here, so ASan sees an overrun). Build: cmake --preset fuzz.
#include <cstddef>
#include <cstdint>

#include "core/check.h"
#include "core/zip_reader.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  try {
    const scratchgpt::ZipReader z(data, size, "fuzz");
    unsigned sum = 0;
    for (const auto& [name, e] : z.entries()) {
      if (e.data < data || e.data + e.size > data + size) __builtin_trap();
      for (uint64_t i = 0; i < e.size; ++i) sum += e.data[i];
    }
    (void)sum;
  } catch (const scratchgpt::Error&) {
  }
  return 0;
}
