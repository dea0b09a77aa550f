// cmd_attention.cpp: 'scratchgpt attention': options -> AttentionRequest; src/run/attention.h does
// the work.
#include <cstdio>
#include <memory>

#include "commands.h"
#include "run/attention.h"

namespace scratchgpt::cli {

void register_attention(CLI::App& app) {
  auto r = std::make_shared<AttentionRequest>();
  auto* cmd = app.add_subcommand(
      "attention",
      "Draw a GPT's attention on a prompt: one self-contained HTML page showing a layer and head "
      "at a time (picked from an overview of all) as a heatmap (query rows, key columns, the "
      "future masked) and as lines query -> key, and a clicked token's computation traced");
  cmd->add_option("--checkpoint", r->checkpoint, "a GPT checkpoint")->required();
  cmd->add_option("--prompt", r->prompt, "the text to run through the model")->required();
  cmd->add_option("--out", r->out, "the .html file to write, e.g. attention.html")->required();
  cmd->add_flag("--overwrite", r->overwrite, "replace an existing --out");
  add_weights_option(cmd, r->weights);
  cmd->footer(
      "Example:\n"
      "  scratchgpt attention --checkpoint out/small/best.safetensors --prompt \"ROMEO: O, she\" "
      "--out attention.html");
  cmd->callback([r] { run_attention(*r, stdout); });
}

}  // namespace scratchgpt::cli
