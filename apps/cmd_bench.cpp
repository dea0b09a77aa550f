// cmd_bench.cpp: the 'bench' subcommand (placeholder until its issue lands).
#include "commands.h"
#include "core/check.h"

namespace scratchgpt::cli {

void register_bench(CLI::App& app) {
  auto* cmd = app.add_subcommand("bench", "(not implemented yet)");
  cmd->callback([] { fail("'bench' is not implemented yet"); });
}

}  // namespace scratchgpt::cli
