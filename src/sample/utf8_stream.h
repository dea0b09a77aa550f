// utf8_stream.h: Utf8HoldBack, the filter between a token stream and a terminal. A byte-level BPE
// token may hold part of a UTF-8 character (GPT-2 writes most CJK characters and emoji as two or
// three byte tokens), so text streamed token by token holds back a trailing incomplete character
// until the tokens that complete it arrive; everything else passes at once, invalid bytes
// included (the concatenation of what comes out is exactly the bytes that went in).
// Readable twin: utf8_complete_prefix_readable walks the whole text from its start; tested to
// agree. Leaves out: validation (strict decoding is core/utf8.h's); here only the structure of a
// sequence counts (a lead byte announces 2, 3 or 4 bytes, continuation bytes are 10xxxxxx).
#pragma once

#include <cstddef>
#include <string>
#include <string_view>

namespace scratchgpt {

class Utf8HoldBack {
 public:
  // Appends bytes and returns what can be written now: everything but a trailing lead byte
  // followed by fewer continuation bytes than it announces.
  std::string push(std::string_view bytes);
  // Whatever is still held (an incomplete character at the end of the text), as is.
  std::string flush();
  size_t held() const { return held_.size(); }

 private:
  std::string held_;  // at most 3 bytes: a lead byte and the continuation bytes after it
};

// The readable twin: the length of the longest prefix of text that Utf8HoldBack writes, found by
// walking the text character by character from its start (a complete sequence, or one invalid
// byte at a time) until what is left is an incomplete but so far well-formed character.
size_t utf8_complete_prefix_readable(std::string_view text);

}  // namespace scratchgpt
