// cmd_sample.cpp: the 'sample' subcommand (placeholder until its issue lands).
#include "commands.h"
#include "core/check.h"

namespace scratchgpt::cli {

void register_sample(CLI::App& app) {
  auto* cmd = app.add_subcommand("sample", "(not implemented yet)");
  cmd->callback([] { fail("'sample' is not implemented yet"); });
}

}  // namespace scratchgpt::cli
