// text.h: small string helpers that the text parsers share (core/perf_probes.cpp's /proc/cpuinfo,
// train/nanogpt_config.cpp's config lines), and printable(), the one way a string that came from
// a file (a tokenizer's name, a run's name, a path) reaches the terminal.
#pragma once

#include <cstdint>
#include <cstdio>
#include <string>

#include "core/utf8.h"

namespace scratchgpt {

// s without its leading and trailing spaces, tabs and carriage returns ("" if nothing else).
inline std::string trimmed(const std::string& s) {
  const size_t a = s.find_first_not_of(" \t\r"), b = s.find_last_not_of(" \t\r");
  return a == std::string::npos ? std::string() : s.substr(a, b - a + 1);
}

// s as the terminal may show it: valid UTF-8 kept, but no byte that a terminal obeys instead of
// showing. Control characters (C0, DEL, C1: ESC of "\x1b[31m" and the CSI U+009B start escape
// sequences), the bidirectional overrides and isolates (they reorder what follows on the line)
// and bytes that are not UTF-8 are written as \t, \r, \xNN (a byte) or \uNNNN (a character);
// so is a newline as \n, which keeps an "error:" line one line, unless keep_newlines (the CLI's
// error printer: a few messages list choices a line each).
inline std::string printable(const std::string& s, bool keep_newlines = false) {
  std::string out;
  out.reserve(s.size());
  char buf[16];
  for (size_t pos = 0; pos < s.size();) {
    const size_t at = pos;
    uint32_t cp = 0;
    if (!utf8_next(s, pos, &cp)) {
      std::snprintf(buf, sizeof buf, "\\x%02x", static_cast<unsigned>(static_cast<uint8_t>(s[at])));
      out += buf;
      pos = at + 1;
    } else if (cp == '\n' && keep_newlines) {
      out += '\n';
    } else if (cp == '\n' || cp == '\t' || cp == '\r') {
      out += cp == '\n' ? "\\n" : cp == '\t' ? "\\t" : "\\r";
    } else if (cp < 0x20 || cp == 0x7F) {
      std::snprintf(buf, sizeof buf, "\\x%02x", static_cast<unsigned>(cp));
      out += buf;
    } else if ((cp >= 0x80 && cp <= 0x9F) || (cp >= 0x202A && cp <= 0x202E) ||
               (cp >= 0x2066 && cp <= 0x2069)) {
      std::snprintf(buf, sizeof buf, "\\u%04x", static_cast<unsigned>(cp));
      out += buf;
    } else {
      out.append(s, at, pos - at);
    }
  }
  return out;
}

}  // namespace scratchgpt
