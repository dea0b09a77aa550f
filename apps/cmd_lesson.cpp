// cmd_lesson.cpp: the 'lesson' subcommand (placeholder until its issue lands).
#include "commands.h"
#include "core/check.h"

namespace scratchgpt::cli {

void register_lesson(CLI::App& app) {
  auto* cmd = app.add_subcommand("lesson", "(not implemented yet)");
  cmd->callback([] { fail("'lesson' is not implemented yet"); });
}

}  // namespace scratchgpt::cli
