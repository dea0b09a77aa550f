// cmd_prepare.cpp: 'scratchgpt prepare': options -> PrepareRequest; src/run/prepare.h does the
// work.
#include <cstdio>
#include <memory>

#include "commands.h"
#include "run/prepare.h"

namespace scratchgpt::cli {

void register_prepare(CLI::App& app) {
  auto r = std::make_shared<PrepareRequest>();
  auto* cmd = app.add_subcommand(
      "prepare",
      "Tokenize a UTF-8 text file by characters (or GPT-2's BPE with --tokenizer gpt2): writes "
      "train.bin, val.bin (90/10 split), the tokenizer (vocab.json, or encoder.json + vocab.bpe) "
      "and meta.json");
  cmd->add_option("--input", r->input,
                  "UTF-8 text file (default: the bundled data/tinyshakespeare.txt)");
  cmd->add_option("--out-dir", r->out_dir,
                  "output directory (default: out/data/<input file name without extension>)");
  cmd->add_option("--tokenizer", r->tokenizer,
                  "char (the text's characters), gpt2 (GPT-2's BPE, the bundled data/gpt2/) or a "
                  "directory with encoder.json and vocab.bpe ('tokenizer train' writes one)")
      ->capture_default_str();
  cmd->add_option("--format", r->format,
                  "token files: scratchgpt (ours: checked, uint16 or uint32 ids), nanogpt (raw "
                  "uint16, what nanoGPT's train.py reads) or llmc (llm.c's data step: its "
                  "tinyshakespeare.py's split and shards, and gpt2_tokenizer.bin; GPT-2 tokens); "
                  "train reads all three")
      ->capture_default_str();
  cmd->add_flag("--overwrite", r->overwrite,
                "replace files in --out-dir that differ from what this prepare writes (without "
                "it, such a file is an error and nothing is written; preparing the same text the "
                "same way again needs no --overwrite)");
  cmd->footer(
      "Examples:\n"
      "  scratchgpt prepare   # the bundled Tiny Shakespeare by characters, into "
      "out/data/tinyshakespeare\n"
      "  scratchgpt prepare --tokenizer gpt2 --out-dir out/data/shakespeare   # GPT-2's tokens\n"
      "  scratchgpt prepare --tokenizer gpt2 --format llmc --out-dir llm.c/dev/data/tinyshakespeare");
  cmd->callback([r] { run_prepare(*r, stdout); });
}

}  // namespace scratchgpt::cli
