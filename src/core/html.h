// html.h: text made safe for the HTML pages scratchgpt writes (the attention page, the training
// report, the lessons' traces), the one place where data is escaped for them: in markup, & < > " '
// as entities, so a token or a path is shown, never parsed; in a <script>, JSON with every < > &
// as \u003c \u003e \u0026, so neither "</script" nor "<!--" can end or derail the script.
// Leaves out: templating; core/page.h puts a page together (its data island through script_json).
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

// JSON text (nlohmann-json's dump, or built by hand) made safe to place between <script> and
// </script>: the HTML parser ends script data at "</script" and, after "<!--", treats a
// "<script" as nested, so a path holding "<!--<script>" would swallow the page's own script.
// Outside strings JSON has no < > &; inside them \u003c is the same character to JSON.parse.
// U+2028 and U+2029 too, for the JavaScript parsers that end a line there.
inline std::string script_json(const std::string& json) {
  std::string out;
  out.reserve(json.size());
  for (size_t i = 0; i < json.size(); ++i) {
    const char c = json[i];
    if (c == '<') {
      out += "\\u003c";
    } else if (c == '>') {
      out += "\\u003e";
    } else if (c == '&') {
      out += "\\u0026";
    } else if (c == '\xE2' && i + 2 < json.size() && json[i + 1] == '\x80' &&
               (json[i + 2] == '\xA8' || json[i + 2] == '\xA9')) {
      out += json[i + 2] == '\xA8' ? "\\u2028" : "\\u2029";
      i += 2;
    } else {
      out += c;
    }
  }
  return out;
}

}  // namespace scratchgpt
