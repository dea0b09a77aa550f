// cmd_train.cpp: the 'train' subcommand (placeholder until its issue lands).
#include "commands.h"
#include "core/check.h"

namespace scratchgpt::cli {

void register_train(CLI::App& app) {
  auto* cmd = app.add_subcommand("train", "(not implemented yet)");
  cmd->callback([] { fail("'train' is not implemented yet"); });
}

}  // namespace scratchgpt::cli
