// pretokenize.cpp: see pretokenize.h.
#include "tokenizer/pretokenize.h"

#include "tokenizer/unicode.h"

namespace scratchgpt {

namespace {

// The end of the run of characters of class cls (or, with not_space_letter_number, of the class
// "neither whitespace, letter nor number") that starts at i.
size_t run_end(std::string_view t, size_t i, CharClass cls) {
  const size_t n = t.size();
  while (i < n) {
    const CharAt c = char_at(t.data(), i);
    if (c.cls != cls) break;
    i += static_cast<size_t>(c.len);
  }
  return i;
}

// 's 't 're 've 'm 'll 'd at i (t[i] == '\''): the length matched, or 0.
size_t contraction(std::string_view t, size_t i) {
  const size_t left = t.size() - i;
  if (left >= 2) {
    const char a = t[i + 1];
    if (a == 's' || a == 't' || a == 'm' || a == 'd') return 2;
  }
  if (left >= 3) {
    const char a = t[i + 1], b = t[i + 2];
    if ((a == 'r' && b == 'e') || (a == 'v' && b == 'e') || (a == 'l' && b == 'l')) return 3;
  }
  return 0;
}

}  // namespace

size_t piece_end(std::string_view t, size_t i) {
  const size_t n = t.size();
  // 's|'t|'re|'ve|'m|'ll|'d
  if (t[i] == '\'')
    if (const size_t len = contraction(t, i)) return i + len;
  // ' ?\p{L}+', ' ?\p{N}+', ' ?[^\s\p{L}\p{N}]+': an optional space, then a run of one class.
  CharAt c = char_at(t.data(), i);
  size_t j = i;
  if (t[i] == ' ' && i + 1 < n) {
    const CharAt next = char_at(t.data(), i + 1);
    if (next.cls != CharClass::kSpace) {
      j = i + 1;
      c = next;
    }
  }
  if (c.cls != CharClass::kSpace) return run_end(t, j, c.cls);
  // '\s+(?!\S)': the whitespace run, less its last character when a non-space follows;
  // '\s+': the whole run, when that leaves nothing (one whitespace character before a non-space).
  size_t k = i, last = i;
  while (k < n) {
    const CharAt w = char_at(t.data(), k);
    if (w.cls != CharClass::kSpace) break;
    last = k;
    k += static_cast<size_t>(w.len);
  }
  if (k == n || last == i) return k;
  return last;
}

}  // namespace scratchgpt
