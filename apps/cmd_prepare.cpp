// cmd_prepare.cpp: the 'prepare' subcommand (placeholder until its issue lands).
#include "commands.h"
#include "core/check.h"

namespace scratchgpt::cli {

void register_prepare(CLI::App& app) {
  auto* cmd = app.add_subcommand("prepare", "(not implemented yet)");
  cmd->callback([] { fail("'prepare' is not implemented yet"); });
}

}  // namespace scratchgpt::cli
