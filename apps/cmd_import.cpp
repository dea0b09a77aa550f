// cmd_import.cpp: 'scratchgpt import': options -> ImportRequest; src/run/import.h does the work.
#include <cstdio>
#include <memory>

#include "commands.h"
#include "run/import.h"

namespace scratchgpt::cli {

void register_import(CLI::App& app) {
  auto r = std::make_shared<ImportRequest>();
  auto* cmd = app.add_subcommand(
      "import",
      "A GPT-2 from Hugging Face (config.json + model.safetensors), nanoGPT (train.py's ckpt.pt, or "
      "its state_dict as safetensors) or llm.c (gpt2_124M.bin) into a scratchgpt checkpoint for sample, eval and "
      "train --init-from");
  cmd->add_option("--format", r->format, "hf, nanogpt or llmc")->required();
  cmd->add_option("--input", r->input,
                  "hf: the model directory (or its model.safetensors); nanogpt: out/ckpt.pt or the .safetensors; "
                  "llmc: the .bin")
      ->required();
  cmd->add_option("--out", r->out, "the checkpoint to write, e.g. out/gpt2.safetensors")
      ->required();
  cmd->add_flag("--overwrite", r->overwrite,
                "replace an existing --out (never the --input itself)");
  cmd->add_option("--tokenizer", r->tokenizer,
                  "gpt2 (GPT-2's BPE, bundled), a directory with encoder.json and vocab.bpe, or "
                  "(nanogpt) a meta.pkl: a char ckpt.pt finds the meta.pkl beside it")
      ->capture_default_str();
  cmd->add_option("--n-head", r->n_head,
                  "attention heads, for a nanoGPT file without model_args metadata (default: the "
                  "file's)");
  cmd->footer(
      "Example:\n"
      "  scratchgpt import --format hf --input ~/models/gpt2 --out out/gpt2.safetensors");
  cmd->callback([r] { run_import(*r, stdout); });
}

}  // namespace scratchgpt::cli
