// text.h: small string helpers that the text parsers share (core/perf_probes.cpp's /proc/cpuinfo,
// train/nanogpt_config.cpp's config lines).
#pragma once

#include <string>

namespace scratchgpt {

// s without its leading and trailing spaces, tabs and carriage returns ("" if nothing else).
inline std::string trimmed(const std::string& s) {
  const size_t a = s.find_first_not_of(" \t\r"), b = s.find_last_not_of(" \t\r");
  return a == std::string::npos ? std::string() : s.substr(a, b - a + 1);
}

}  // namespace scratchgpt
