// book_bridge.cpp: the lesson book's one entry into the C++ (embind): lessons_json() lists the
// lessons of apps/lessons/lesson.cpp, lesson_json(name, options) runs one into a LessonOut record,
// exactly as `scratchgpt lesson NAME --json` does. Leaves out: drawing (web/lessons/book.js) and
// the CLI's --html/--data; a bad setting comes back as {"error": "<the CLI's one-line message>"}.
#include <emscripten/bind.h>

#include <algorithm>
#include <nlohmann/json.hpp>
#include <optional>
#include <sstream>
#include <string>
#include <utility>

#include "core/check.h"
#include "lessons/lesson.h"

namespace scratchgpt::web {

namespace {

using lessons::Lesson;
using lessons::LessonOptions;

// The lesson table's flags ("B=4 T=8 seed=1337 trace"): the names, and the defaults they have.
std::vector<std::string> flags_of(const Lesson& l) {
  std::istringstream in(l.flags);
  std::vector<std::string> out;
  for (std::string f; in >> f;) out.push_back(f.substr(0, f.find('=')));
  return out;
}

nlohmann::json defaults_of(const Lesson& l) {
  std::istringstream in(l.flags);
  nlohmann::json out = nlohmann::json::object();
  for (std::string f; in >> f;)
    if (f.find('=') != std::string::npos) out[f.substr(0, f.find('='))] = f.substr(f.find('=') + 1);
  return out;
}

// "head_size" or "head-size" -> "head-size" (the CLI's spelling).
std::string dashed(std::string name) {
  for (char& ch : name)
    if (ch == '_') ch = '-';
  return name;
}

// "--B, --T and --seed", as the CLI says it.
std::string flag_list(const std::vector<std::string>& flags) {
  std::string s;
  for (size_t i = 0; i < flags.size(); ++i)
    s += (i == 0 ? "" : i + 1 == flags.size() ? " and " : ", ") + ("--" + flags[i]);
  return s;
}

// A whole decimal number in [lo, hi], or a one-line error naming the flag.
uint64_t parse_number(const std::string& flag, const std::string& text, uint64_t lo, uint64_t hi) {
  uint64_t v = 0;
  bool ok = !text.empty() && text.size() <= 20;
  for (char ch : text) ok = ok && ch >= '0' && ch <= '9';
  if (ok) {
    std::istringstream in(text);
    ok = static_cast<bool>(in >> v);
  }
  if (!ok || v < lo || v > hi)
    fail("--", flag, " must be between ", lo, " and ", hi, ", got ", text);
  return v;
}

// The size flags and the LessonOptions field each sets (the CLI's own names).
const std::pair<const char*, std::optional<int> LessonOptions::*> kSizes[] = {
    {"B", &LessonOptions::B},           {"T", &LessonOptions::T},
    {"C", &LessonOptions::C},           {"head-size", &LessonOptions::head_size},
    {"n-head", &LessonOptions::n_head}, {"block-size", &LessonOptions::block_size},
    {"d-in", &LessonOptions::d_in},     {"d-out", &LessonOptions::d_out},
};

// The page's settings {"B": "1", "head_size": "3", "trace": "1"} as the CLI's LessonOptions,
// checked as `scratchgpt lesson` checks its flags.
LessonOptions parse_options(const Lesson& l, const nlohmann::json& settings) {
  const std::vector<std::string> takes = flags_of(l);
  LessonOptions lo;
  for (const auto& [key, raw] : settings.items()) {
    const std::string flag = dashed(key);
    const std::string text = raw.is_string() ? raw.get<std::string>() : raw.dump();
    if (std::find(takes.begin(), takes.end(), flag) == takes.end() || flag == "html")
      fail("lesson ", l.name, " does not take --", flag,
           takes.empty() ? std::string("; it takes no sizes") : "; it takes " + flag_list(takes));
    if (flag == "trace") {
      lo.trace = text == "1" || text == "true" || text == "on";
    } else if (flag == "seed") {
      lo.seed = parse_number(flag, text, 0, UINT64_MAX);
    } else {
      bool known = false;
      for (const auto& [name, member] : kSizes)
        if (flag == name) {
          lo.*member = static_cast<int>(parse_number(flag, text, 1, 1 << 20));
          known = true;
        }
      if (!known)
        fail("the lesson book cannot set --", flag, " yet: run 'scratchgpt lesson ", l.name, " --",
             flag, " ...' on the command line");
    }
  }
  return lo;
}

std::string error_json(const std::string& message) {
  return nlohmann::json{{"error", message}}.dump();
}

}  // namespace

// [{"name", "source", "description", "flags": ["B", "T", ...], "defaults": {"B": "4", ...}}, ...]
// in the texts' order.
std::string lessons_json() {
  nlohmann::json list = nlohmann::json::array();
  for (const Lesson& l : lessons::all_lessons())
    list.push_back({{"name", l.name},
                    {"source", l.source},
                    {"description", l.description},
                    {"flags", flags_of(l)},
                    {"defaults", defaults_of(l)}});
  return list.dump();
}

// {"steps": <LessonOut::record_json()>} or {"error": "..."}.
std::string lesson_json(const std::string& name, const std::string& options_json) {
  try {
    for (const Lesson& l : lessons::all_lessons()) {
      if (name != l.name) continue;
      const nlohmann::json settings = nlohmann::json::parse(options_json);
      const LessonOptions lo = parse_options(l, settings);
      lessons::LessonOut out(nullptr, true);
      l.run(lo, out);
      return "{\"steps\":" + out.record_json() + "}";
    }
    return error_json("unknown lesson '" + name + "'");
  } catch (const std::exception& e) {  // scratchgpt::Error, a bad JSON, std::bad_alloc
    return error_json(e.what());
  }
}

}  // namespace scratchgpt::web

EMSCRIPTEN_BINDINGS(scratchgpt_book) {
  emscripten::function("lessons_json", &scratchgpt::web::lessons_json);
  emscripten::function("lesson_json", &scratchgpt::web::lesson_json);
}
