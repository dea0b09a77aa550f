// html.h: text made safe for the HTML pages scratchgpt writes (the attention page, the training
// report, the lessons' traces): & < > " ' as entities, so a token or a path is shown, never parsed.
// Leaves out: templating; each page builds its markup itself.
#pragma once

#include <string>

namespace scratchgpt {

inline std::string html_escape(const std::string& s) {
  std::string out;
  out.reserve(s.size());
  for (char c : s) {
    switch (c) {
      case '&': out += "&amp;"; break;
      case '<': out += "&lt;"; break;
      case '>': out += "&gt;"; break;
      case '"': out += "&quot;"; break;
      case '\'': out += "&#39;"; break;
      default: out += c;
    }
  }
  return out;
}

}  // namespace scratchgpt
