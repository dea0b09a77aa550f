// commands.h: each subcommand of the CLI registers itself with one function, defined in its own
// apps/cmd_<name>.cpp. The work itself lives in src/; these files only parse options.
#pragma once

#include <CLI/CLI.hpp>

namespace scratchgpt::cli {

void register_prepare(CLI::App& app);  // cmd_prepare.cpp
void register_train(CLI::App& app);    // cmd_train.cpp
void register_sample(CLI::App& app);   // cmd_sample.cpp
void register_eval(CLI::App& app);     // cmd_eval.cpp
void register_lesson(CLI::App& app);   // cmd_lesson.cpp
void register_bench(CLI::App& app);    // cmd_bench.cpp
void register_tokenize(CLI::App& app); // cmd_tokenize.cpp

inline void register_commands(CLI::App& app) {
  register_prepare(app);
  register_train(app);
  register_sample(app);
  register_eval(app);
  register_lesson(app);
  register_bench(app);
  register_tokenize(app);
}

}  // namespace scratchgpt::cli
