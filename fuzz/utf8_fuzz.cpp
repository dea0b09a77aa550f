// utf8_fuzz.cpp: libFuzzer harness for the strict UTF-8 decoder behind the character tokenizer
// (prepare's input text, prompts). Checks, for any bytes: utf8_invalid_offset agrees with decoding
// code point by code point; a valid text re-encodes to the same bytes; a vocabulary built from it
// encodes and decodes it back.
#include <cstddef>
#include <cstdint>
#include <string>

#include "core/check.h"
#include "tokenizer/char_tokenizer.h"
#include "core/utf8.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace scratchgpt;
  const std::string s(reinterpret_cast<const char*>(data), size);
  std::string re;
  size_t pos = 0;
  uint32_t cp = 0;
  while (pos < s.size() && utf8_next(s, pos, &cp)) re += utf8_encode(cp);
  const size_t bad = utf8_invalid_offset(s);
  if ((bad == std::string::npos) != (pos == s.size())) __builtin_trap();
  if (bad != std::string::npos && bad != pos) __builtin_trap();
  if (bad == std::string::npos) {
    if (re != s) __builtin_trap();
    if (!s.empty()) {
      try {
        const CharTokenizer tok = CharTokenizer::from_text(s);
        if (tok.decode(tok.encode(s)) != s) __builtin_trap();
      } catch (const Error&) {
      }
    }
  }
  return 0;
}
