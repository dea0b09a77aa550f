// pretokenize.h: GPT-2's pre-tokenizer, the regex of OpenAI's r50k_base written out by hand over
// code points:
//   's|'t|'re|'ve|'m|'ll|'d| ?\p{L}+| ?\p{N}+| ?[^\s\p{L}\p{N}]+|\s+(?!\S)|\s+
// At each position the first alternative that matches wins; the pieces cover the text exactly.
// BPE then merges within each piece, never across. Leaves out: other encodings' patterns
// (cl100k_base's case-insensitive contractions and digit groups of three).
#pragma once

#include <cstddef>
#include <string_view>

namespace scratchgpt {

// Calls piece(begin, end) for each piece of text (byte offsets), in order. text must be valid
// UTF-8 (check it first: core/utf8.h).
template <typename Fn>
void pretokenize(std::string_view text, Fn&& piece);

// The end of the piece that starts at byte i (i < text.size()).
size_t piece_end(std::string_view text, size_t i);

template <typename Fn>
void pretokenize(std::string_view text, Fn&& piece) {
  for (size_t i = 0; i < text.size();) {
    const size_t e = piece_end(text, i);
    piece(i, e);
    i = e;
  }
}

}  // namespace scratchgpt
