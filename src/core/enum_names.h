// enum_names.h: an enum's spellings in config files and on the command line, as a table of
// {value, "name"} pairs next to the enum, and the two lookups every enum needs: its name, and its
// value from a name (an Error listing the choices otherwise). Leaves out: flags (bit sets).
#pragma once

#include <optional>
#include <span>
#include <string>
#include <utility>

#include "core/check.h"

namespace scratchgpt {

template <typename E>
using EnumNames = std::span<const std::pair<E, const char*>>;

// "a, b or c"
template <typename E>
std::string enum_choices(EnumNames<E> names) {
  std::string s;
  for (size_t i = 0; i < names.size(); ++i)
    s += std::string(i == 0 ? "" : i + 1 == names.size() ? " or " : ", ") + names[i].second;
  return s;
}

template <typename E>
const char* enum_name(EnumNames<E> names, E value) {
  for (const auto& [v, n] : names)
    if (v == value) return n;
  return "?";
}

// The value named `name`, or nothing (for a caller that words its own error).
template <typename E>
std::optional<E> enum_lookup(EnumNames<E> names, const std::string& name) {
  for (const auto& [v, n] : names)
    if (name == n) return v;
  return std::nullopt;
}

// what names the setting in the error: "unknown activation 'swish': choose relu, gelu or ...".
template <typename E>
E enum_from_name(EnumNames<E> names, const std::string& name, const std::string& what) {
  if (const std::optional<E> v = enum_lookup(names, name)) return *v;
  fail("unknown ", what, " '", name, "': choose ", enum_choices(names));
}

}  // namespace scratchgpt
