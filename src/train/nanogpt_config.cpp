// nanogpt_config.cpp: see nanogpt_config.h.
#include "train/nanogpt_config.h"

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <sstream>

#include "core/check.h"
#include "core/text.h"
#include "core/utf8.h"
#include "train/train_config.h"

namespace scratchgpt {

// One Python literal of a nanoGPT config: True/False, 'text' or "text", an int, a float (1e-3),
// or a product of numbers (5 * 8). std::nullopt when it is none of them.
std::optional<nlohmann::json> python_literal(const std::string& text) {
  const std::string v = trimmed(text);
  if (v == "True") return true;
  if (v == "False") return false;
  if (v.size() >= 2 && (v[0] == '\'' || v[0] == '"') && v.back() == v[0] &&
      v.find(v[0], 1) == v.size() - 1)
    return v.substr(1, v.size() - 2);
  auto number = [](const std::string& t) -> std::optional<nlohmann::json> {
    const std::string n = trimmed(t);
    if (n.empty()) return std::nullopt;
    const bool whole = n.find_first_not_of("+-0123456789") == std::string::npos;
    char* end = nullptr;
    errno = 0;
    if (whole) {
      const long long i = std::strtoll(n.c_str(), &end, 10);
      if (*end == '\0' && errno == 0) return nlohmann::json(static_cast<int64_t>(i));
      return std::nullopt;
    }
    if (n.find_first_not_of("+-0123456789.eE") != std::string::npos) return std::nullopt;
    const double d = std::strtod(n.c_str(), &end);
    if (*end != '\0' || errno != 0 || !std::isfinite(d)) return std::nullopt;
    return nlohmann::json(d);
  };
  if (v.find('*') == std::string::npos) return number(v);
  nlohmann::json product = int64_t{1};
  for (size_t from = 0;;) {
    const size_t star = v.find('*', from);
    const std::optional<nlohmann::json> f = number(v.substr(from, star - from));
    if (!f) return std::nullopt;
    int64_t whole = 0;
    if (product.is_number_integer() && f->is_number_integer() &&
        !__builtin_mul_overflow(product.get<int64_t>(), f->get<int64_t>(), &whole))
      product = whole;
    else
      product = product.get<double>() * f->get<double>();
    if (star == std::string::npos) return product;
    from = star + 1;
  }
}

// nanoGPT's config files (config/train_shakespeare_char.py): `key = value` lines of Python
// literals, # comments, blank lines; import lines are skipped, and the values of keys that mean
// nothing here are not read (nanoGPT's finetune config names its run 'ft-' + str(time.time())).
nlohmann::json parse_nanogpt_config(const std::string& text, const std::string& path) {
  const size_t bad = utf8_invalid_offset(text);
  SG_CHECK(bad == std::string::npos, "--config ", path, " is not valid UTF-8 at byte offset ", bad,
           ": save it as UTF-8");
  nlohmann::json out = nlohmann::json::object();
  const auto& skip = ignored_config_keys();
  std::istringstream in(text);
  std::string line;
  for (int no = 1; std::getline(in, line); ++no) {
    // The comment starts at a # outside quotes.
    char quote = 0;
    for (size_t i = 0; i < line.size(); ++i) {
      if (quote) {
        if (line[i] == quote) quote = 0;
      } else if (line[i] == '\'' || line[i] == '"') {
        quote = line[i];
      } else if (line[i] == '#') {
        line.resize(i);
        break;
      }
    }
    line = trimmed(line);
    if (line.empty() || line.rfind("import ", 0) == 0 || line.rfind("from ", 0) == 0) continue;
    const size_t eq = line.find('=');
    const std::string key = eq == std::string::npos ? "" : trimmed(line.substr(0, eq));
    SG_CHECK(!key.empty() && key.find_first_not_of("abcdefghijklmnopqrstuvwxyz"
                                                   "ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_") ==
                                 std::string::npos,
             "--config ", path, " line ", no, ": expected key = value, got '", line, "'");
    if (std::find(skip.begin(), skip.end(), key) != skip.end()) {
      out[key] = nullptr;  // reported as ignored; its value is not read
      continue;
    }
    const std::optional<nlohmann::json> value = python_literal(line.substr(eq + 1));
    SG_CHECK(value.has_value(), "--config ", path, " line ", no, ": the value of ", key,
             " is not a number, True/False or a quoted string: '", trimmed(line.substr(eq + 1)),
             "'");
    out[key] = *value;
  }
  return out;
}

}  // namespace scratchgpt
