// vocab_fuzz.cpp: libFuzzer harness for CharTokenizer::from_json (vocab.json, and the vocabulary
// inside every checkpoint). An accepted vocabulary must round-trip: encoding each of its
// characters and decoding the ids gives the characters back, and to_json reads back the same.
#include <cstddef>
#include <cstdint>
#include <string>

#include "core/check.h"
#include "tokenizer/char_tokenizer.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace scratchgpt;
  try {
    const CharTokenizer tok =
        CharTokenizer::from_json(std::string(reinterpret_cast<const char*>(data), size));
    std::string all;
    for (const std::string& c : tok.chars()) all += c;
    const std::vector<int32_t> ids = tok.encode(all);
    if (static_cast<int>(ids.size()) != tok.vocab_size()) __builtin_trap();
    if (tok.decode(ids) != all) __builtin_trap();
    if (CharTokenizer::from_json(tok.to_json()).chars() != tok.chars()) __builtin_trap();
  } catch (const Error&) {
  }
  return 0;
}
