// utf8.cpp: see utf8.h.
#include "core/utf8.h"

#include <cstdio>

namespace scratchgpt {

bool utf8_next(const std::string& s, size_t& pos, uint32_t* cp) {
  const size_t n = s.size();
  if (pos >= n) return false;
  const auto b0 = static_cast<uint8_t>(s[pos]);
  if (b0 < 0x80) {
    *cp = b0;
    ++pos;
    return true;
  }
  int len;
  uint32_t c, min;
  if ((b0 & 0xE0) == 0xC0) {
    len = 2, c = b0 & 0x1F, min = 0x80;
  } else if ((b0 & 0xF0) == 0xE0) {
    len = 3, c = b0 & 0x0F, min = 0x800;
  } else if ((b0 & 0xF8) == 0xF0) {
    len = 4, c = b0 & 0x07, min = 0x10000;
  } else {
    return false;  // a continuation byte or 0xF8..0xFF cannot start a character
  }
  if (pos + len > n) return false;  // truncated at the end
  for (int i = 1; i < len; ++i) {
    const auto b = static_cast<uint8_t>(s[pos + i]);
    if ((b & 0xC0) != 0x80) return false;
    c = (c << 6) | (b & 0x3F);
  }
  if (c < min || c > 0x10FFFF || (c >= 0xD800 && c <= 0xDFFF)) return false;
  *cp = c;
  pos += len;
  return true;
}

size_t utf8_invalid_offset(const std::string& s) {
  size_t pos = 0;
  uint32_t cp;
  while (pos < s.size()) {
    if (!utf8_next(s, pos, &cp)) return pos;
  }
  return std::string::npos;
}

std::string utf8_replace_invalid(std::string_view s) {
  static constexpr char kReplacement[] = "\xEF\xBF\xBD";  // U+FFFD
  std::string out;
  out.reserve(s.size());
  const size_t n = s.size();
  size_t pos = 0;
  while (pos < n) {
    const auto b0 = static_cast<uint8_t>(s[pos]);
    if (b0 < 0x80) {
      out += static_cast<char>(b0);
      ++pos;
      continue;
    }
    // How many continuation bytes the lead announces, and the range its first one must fall in
    // (RFC 3629's table: E0 and F0 exclude overlong forms, ED surrogates, F4 what passes U+10FFFF).
    int need = 0;
    uint8_t lo = 0x80, hi = 0xBF;
    if (b0 >= 0xC2 && b0 <= 0xDF) {
      need = 1;
    } else if (b0 >= 0xE0 && b0 <= 0xEF) {
      need = 2;
      if (b0 == 0xE0) lo = 0xA0;
      if (b0 == 0xED) hi = 0x9F;
    } else if (b0 >= 0xF0 && b0 <= 0xF4) {
      need = 3;
      if (b0 == 0xF0) lo = 0x90;
      if (b0 == 0xF4) hi = 0x8F;
    }
    int have = 0;  // continuation bytes that may follow, up to the first that may not
    while (have < need && pos + 1 + have < n) {
      const auto b = static_cast<uint8_t>(s[pos + 1 + have]);
      if (b < (have == 0 ? lo : 0x80) || b > (have == 0 ? hi : 0xBF)) break;
      ++have;
    }
    if (need > 0 && have == need) {
      out.append(s.substr(pos, 1 + need));  // a whole character
    } else {
      out += kReplacement;  // the lead and the continuation bytes it had: one U+FFFD
    }
    pos += 1 + have;
  }
  return out;
}

std::string utf8_encode(uint32_t cp) {
  std::string out;
  if (cp < 0x80) {
    out += static_cast<char>(cp);
  } else if (cp < 0x800) {
    out += static_cast<char>(0xC0 | (cp >> 6));
    out += static_cast<char>(0x80 | (cp & 0x3F));
  } else if (cp < 0x10000) {
    out += static_cast<char>(0xE0 | (cp >> 12));
    out += static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
    out += static_cast<char>(0x80 | (cp & 0x3F));
  } else {
    out += static_cast<char>(0xF0 | (cp >> 18));
    out += static_cast<char>(0x80 | ((cp >> 12) & 0x3F));
    out += static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
    out += static_cast<char>(0x80 | (cp & 0x3F));
  }
  return out;
}

std::string describe_code_point(uint32_t cp) {
  std::string shown;
  if (cp == '\n') {
    shown = "\\n";
  } else if (cp == '\t') {
    shown = "\\t";
  } else if (cp == '\r') {
    shown = "\\r";
  } else if (cp < 0x20 || cp == 0x7F) {
    shown = "?";
  } else {
    shown = utf8_encode(cp);
  }
  char code[16];
  std::snprintf(code, sizeof(code), "U+%04X", cp);
  return "'" + shown + "' (" + code + ")";
}

}  // namespace scratchgpt
