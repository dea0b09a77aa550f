// utf8.h: strict UTF-8 decoding and encoding of single code points (RFC 3629: no overlong forms,
// no surrogates, nothing above U+10FFFF), used by the character tokenizer, and the replacement of
// ill-formed bytes by U+FFFD that text shown to a user goes through.
// Leaves out: normalisation and grapheme clusters; one code point is one character here.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

namespace scratchgpt {

// Decodes the code point starting at s[pos] into *cp and advances pos. Returns false (pos
// unchanged) when the bytes at pos are not valid UTF-8.
bool utf8_next(const std::string& s, size_t& pos, uint32_t* cp);

// Byte offset of the first invalid UTF-8 sequence in s, or std::string::npos if s is valid.
size_t utf8_invalid_offset(const std::string& s);

// s with every ill-formed sequence replaced by U+FFFD, as Python's bytes.decode("utf-8",
// errors="replace") does (and so tiktoken's decode and nanoGPT's sample.py): each maximal
// subpart of an ill-formed sequence (a lead byte and the continuation bytes that may follow it,
// up to the first that may not) becomes one U+FFFD; valid text passes unchanged.
std::string utf8_replace_invalid(std::string_view s);

// The UTF-8 bytes of one code point (cp must be a valid scalar value).
std::string utf8_encode(uint32_t cp);

// "'a' (U+0061)" or "'\n' (U+000A)": a character as error messages show it.
std::string describe_code_point(uint32_t cp);

}  // namespace scratchgpt
