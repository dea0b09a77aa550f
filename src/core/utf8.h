// utf8.h: strict UTF-8 decoding and encoding of single code points (RFC 3629: no overlong forms,
// no surrogates, nothing above U+10FFFF), used by the character tokenizer.
// Leaves out: normalisation and grapheme clusters; one code point is one character here.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

namespace scratchgpt {

// Decodes the code point starting at s[pos] into *cp and advances pos. Returns false (pos
// unchanged) when the bytes at pos are not valid UTF-8.
bool utf8_next(const std::string& s, size_t& pos, uint32_t* cp);

// Byte offset of the first invalid UTF-8 sequence in s, or std::string::npos if s is valid.
size_t utf8_invalid_offset(const std::string& s);

// The UTF-8 bytes of one code point (cp must be a valid scalar value).
std::string utf8_encode(uint32_t cp);

// "'a' (U+0061)" or "'\n' (U+000A)": a character as error messages show it.
std::string describe_code_point(uint32_t cp);

}  // namespace scratchgpt
