// check.h: checked errors. SG_CHECK throws scratchgpt::Error with a one-line message that names
// the problem and, where possible, the fix. The CLI catches it, prints "error: <message>" and
// exits non-zero. Deliberately no abort(): bad input must never crash or lose work.
#pragma once

#include <sstream>
#include <stdexcept>
#include <string>

namespace scratchgpt {

class Error : public std::runtime_error {
 public:
  explicit Error(const std::string& msg) : std::runtime_error(msg) {}
};

namespace detail {
inline void append(std::ostringstream&) {}
template <typename A, typename... Rest>
void append(std::ostringstream& os, const A& a, const Rest&... rest) {
  os << a;
  append(os, rest...);
}
}  // namespace detail

// Builds a message from any streamable pieces: fail("cannot open ", path, ": ", why).
template <typename... Args>
[[noreturn]] void fail(const Args&... args) {
  std::ostringstream os;
  detail::append(os, args...);
  throw Error(os.str());
}

}  // namespace scratchgpt

// SG_CHECK(cond, pieces...): throws scratchgpt::Error(pieces...) when cond is false.
#define SG_CHECK(cond, ...)                               \
  do {                                                    \
    if (!(cond)) ::scratchgpt::fail(__VA_ARGS__);         \
  } while (0)
