// unicode.cpp: see unicode.h.
#include "tokenizer/unicode.h"

#include <algorithm>
#include <array>

namespace scratchgpt {

namespace {

struct CodePointRange {
  uint32_t first, last;
};
#include "tokenizer/unicode_tables.inc"

// White_Space (what \s matches in tiktoken's regex): 25 code points, stable since Unicode 6.
bool is_white_space(uint32_t cp) {
  return (cp >= 0x09 && cp <= 0x0D) || cp == 0x20 || cp == 0x85 || cp == 0xA0 || cp == 0x1680 ||
         (cp >= 0x2000 && cp <= 0x200A) || cp == 0x2028 || cp == 0x2029 || cp == 0x202F ||
         cp == 0x205F || cp == 0x3000;
}

template <size_t N>
bool in_ranges(const CodePointRange (&r)[N], uint32_t cp) {
  const auto it = std::upper_bound(std::begin(r), std::end(r), cp,
                                   [](uint32_t c, const CodePointRange& x) { return c < x.first; });
  return it != std::begin(r) && cp <= (it - 1)->last;
}

CharClass slow_class(uint32_t cp) {
  if (is_white_space(cp)) return CharClass::kSpace;
  if (in_ranges(kLetterRanges, cp)) return CharClass::kLetter;
  if (in_ranges(kNumberRanges, cp)) return CharClass::kNumber;
  return CharClass::kOther;
}

// The Basic Multilingual Plane, one byte per code point, built once.
const std::array<CharClass, 0x10000>& bmp() {
  static const auto table = [] {
    std::array<CharClass, 0x10000> t{};
    for (uint32_t cp = 0; cp < 0x10000; ++cp) t[cp] = slow_class(cp);
    return t;
  }();
  return table;
}

}  // namespace

CharClass char_class(uint32_t cp) { return cp < 0x10000 ? bmp()[cp] : slow_class(cp); }

CharAt char_at(const char* s, size_t i) {
  const auto b = static_cast<unsigned char>(s[i]);
  if (b < 0x80) return {bmp()[b], 1};
  uint32_t cp;
  int len;
  if (b < 0xE0) {
    cp = (b & 0x1Fu) << 6 | (static_cast<unsigned char>(s[i + 1]) & 0x3Fu);
    len = 2;
  } else if (b < 0xF0) {
    cp = (b & 0x0Fu) << 12 | (static_cast<unsigned char>(s[i + 1]) & 0x3Fu) << 6 |
         (static_cast<unsigned char>(s[i + 2]) & 0x3Fu);
    len = 3;
  } else {
    cp = (b & 0x07u) << 18 | (static_cast<unsigned char>(s[i + 1]) & 0x3Fu) << 12 |
         (static_cast<unsigned char>(s[i + 2]) & 0x3Fu) << 6 |
         (static_cast<unsigned char>(s[i + 3]) & 0x3Fu);
    len = 4;
  }
  return {char_class(cp), len};
}

}  // namespace scratchgpt
