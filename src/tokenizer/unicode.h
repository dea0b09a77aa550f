// unicode.h: the character classes GPT-2's pre-tokenizer splits on, per code point: letters
// (general category L), numbers (N), whitespace (the White_Space property, as regex's \s) and
// everything else. ASCII and the Basic Multilingual Plane are a table lookup; the rest a binary
// search over the generated ranges (unicode_tables.inc, Unicode 15). Leaves out: other
// properties, normalisation.
#pragma once

#include <cstddef>
#include <cstdint>

namespace scratchgpt {

enum class CharClass : uint8_t { kOther = 0, kLetter = 1, kNumber = 2, kSpace = 3 };

CharClass char_class(uint32_t cp);

// The code point at s[i] of valid UTF-8 (the caller validated it): its class and byte length.
struct CharAt {
  CharClass cls;
  int len;
};
CharAt char_at(const char* s, size_t i);

}  // namespace scratchgpt
