// nanogpt_config.h: nanoGPT's config files (config/train_shakespeare_char.py: `key = value` lines
// of Python literals, # comments, blank lines, import lines skipped) and its configurator's
// `--key=value` values, read as JSON config keys (nanoGPT's names; train_config.h's
// canonical_config_keys maps them to ours). Keys that mean nothing here (ignored_config_keys) are
// kept with a null value, unread. Leaves out: Python beyond literals and products (no names, no
// expressions other than a * b).
#pragma once

#include <nlohmann/json.hpp>
#include <optional>
#include <string>

namespace scratchgpt {

// One Python literal: True/False, 'text' or "text", an int, a float (1e-3), or a product of
// numbers (5 * 8; an int product that overflows becomes a float). std::nullopt when it is none.
std::optional<nlohmann::json> python_literal(const std::string& text);

// The file's keys and values; a line that is not `key = literal`, or text that is not UTF-8, is an
// Error naming path and line (or byte offset).
// The fuzzer's entry point.
nlohmann::json parse_nanogpt_config(const std::string& text, const std::string& path);

}  // namespace scratchgpt
