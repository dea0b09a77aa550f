// safetensors_fuzz.cpp: libFuzzer harness for parse_safetensors, the reader of every .safetensors
// file (checkpoints, fixtures, imported weights). Any input must either parse into tensors whose
// byte counts match their shapes, or be refused with an Error; a crash, a sanitizer report or a
// leak is a bug. Build: cmake --preset fuzz; run: see fuzz/README.md.
#include <cstddef>
#include <cstdint>

#include "core/check.h"
#include "core/safetensors.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  try {
    const scratchgpt::SafeTensors st = scratchgpt::parse_safetensors(data, size, "fuzz");
    for (const auto& [name, t] : st.tensors) {
      // A parsed tensor holds exactly the bytes its shape needs; reading it must be safe.
      if (t.dtype == "F32" || t.dtype == "F64") (void)st.f32(name);
      if (t.dtype == "I32" || t.dtype == "I64") (void)st.i64(name);
    }
    (void)st.checksum();
  } catch (const scratchgpt::Error&) {
  }
  return 0;
}
