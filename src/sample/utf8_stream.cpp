// utf8_stream.cpp: see utf8_stream.h.
#include "sample/utf8_stream.h"

#include <algorithm>
#include <utility>

namespace scratchgpt {

namespace {

bool is_continuation(unsigned char b) { return (b & 0xC0) == 0x80; }

// The length a lead byte announces: 1 for ASCII and for bytes that cannot start a sequence
// (continuation bytes, 0xF8..0xFF), which then stand alone.
size_t announced_length(unsigned char b) {
  if ((b & 0xE0) == 0xC0) return 2;
  if ((b & 0xF0) == 0xE0) return 3;
  if ((b & 0xF8) == 0xF0) return 4;
  return 1;
}

}  // namespace

std::string Utf8HoldBack::push(std::string_view bytes) {
  std::string text = std::move(held_);
  text.append(bytes);
  held_.clear();
  // Only the last 3 bytes can belong to an incomplete character: find the last byte among them
  // that is not a continuation byte; hold it and what follows if it announces more.
  const size_t n = text.size();
  for (size_t back = 1; back <= std::min<size_t>(3, n); ++back) {
    const auto b = static_cast<unsigned char>(text[n - back]);
    if (is_continuation(b)) continue;
    if (announced_length(b) > back) {
      held_ = text.substr(n - back);
      text.resize(n - back);
    }
    break;
  }
  return text;
}

std::string Utf8HoldBack::flush() { return std::exchange(held_, std::string()); }

size_t utf8_complete_prefix_readable(std::string_view text) {
  size_t pos = 0;
  while (pos < text.size()) {
    const size_t len = announced_length(static_cast<unsigned char>(text[pos]));
    const size_t have = std::min(len, text.size() - pos);
    // Are the bytes after the lead (as many as there are, up to len - 1) continuation bytes?
    bool well_formed = true;
    for (size_t i = 1; i < have; ++i)
      well_formed = well_formed && is_continuation(static_cast<unsigned char>(text[pos + i]));
    if (!well_formed) {
      pos += 1;  // an invalid byte stands alone
    } else if (have == len) {
      pos += len;  // a complete character
    } else {
      return pos;  // an incomplete character at the end: held back
    }
  }
  return pos;
}

}  // namespace scratchgpt
