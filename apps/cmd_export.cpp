// cmd_export.cpp: 'scratchgpt export': options -> ExportRequest; src/run/export.h does the work.
#include <cstdio>
#include <memory>

#include "commands.h"
#include "run/export.h"

namespace scratchgpt::cli {

void register_export(CLI::App& app) {
  auto r = std::make_shared<ExportRequest>();
  auto* cmd = app.add_subcommand(
      "export",
      "A GPT checkpoint's weights for Hugging Face transformers (a directory), nanoGPT "
      "(load_state_dict(strict=True)), llm.c (gpt2_124M.bin format) or as a weights-only "
      "scratchgpt checkpoint");
  cmd->add_option("--format", r->format, "hf, nanogpt, llmc or scratchgpt")->required();
  cmd->add_option("--checkpoint", r->checkpoint, "a checkpoint of a GPT")->required();
  cmd->add_option("--out", r->out, "hf: a directory; the others: a file")->required();
  cmd->add_flag("--overwrite", r->overwrite,
                "replace an existing --out (an hf directory only if it holds just an export's "
                "files); never the --checkpoint itself");
  cmd->footer(
      "Example:\n"
      "  scratchgpt export --format llmc --checkpoint out/gpt2.safetensors --out gpt2_124M.bin");
  cmd->callback([r] { run_export(*r, stdout); });
}

}  // namespace scratchgpt::cli
