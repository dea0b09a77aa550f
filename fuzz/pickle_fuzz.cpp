// pickle_fuzz.cpp: libFuzzer harness for the restricted unpickler (core/pickle.h), the reader of
// nanoGPT's meta.pkl and of ckpt.pt's data.pkl. Any input must parse or be refused with an Error;
// a crash, a hang, a sanitizer report or a leak (values may form cycles) is a bug. An accepted
// pickle's tensors lie inside their storages. Build: cmake --preset fuzz; run: see fuzz/README.md.
#include <cstddef>
#include <cstdint>

#include "core/check.h"
#include "core/pickle.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  try {
    const scratchgpt::Pickle p(data, size, "fuzz");
    const scratchgpt::PickleValue& root = p.root();
    (void)root.get("model");
    for (const scratchgpt::PickleValue* v : root.items) {
      if (!v->is(scratchgpt::PickleValue::Kind::kTensor)) continue;
      int64_t last = v->i;
      for (size_t d = 0; d < v->shape.size(); ++d)
        last += (v->shape[d] > 0 ? v->shape[d] - 1 : 0) * v->stride[d];
      if (last >= v->storage->i && !v->shape.empty() && v->shape[0] > 0) __builtin_trap();
    }
  } catch (const scratchgpt::Error&) {
  }
  return 0;
}
