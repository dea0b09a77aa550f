// cmd_prepare.cpp: 'scratchgpt prepare': tokenize a UTF-8 text into train/val token files and a
// vocabulary (src/data/prepare.h does the work).
#include <cstdio>
#include <filesystem>
#include <memory>

#include "commands.h"
#include "data/prepare.h"

namespace scratchgpt::cli {

void register_prepare(CLI::App& app) {
  struct Opts {
    std::string input, out_dir, tokenizer = "char";
  };
  auto o = std::make_shared<Opts>();
  auto* cmd = app.add_subcommand(
      "prepare",
      "Tokenize a UTF-8 text file by characters (or GPT-2's BPE with --tokenizer gpt2): writes "
      "train.bin, val.bin (90/10 split), the tokenizer (vocab.json, or encoder.json + vocab.bpe) "
      "and meta.json");
  cmd->add_option("--input", o->input,
                  "UTF-8 text file (default: the bundled data/tinyshakespeare.txt)");
  cmd->add_option("--out-dir", o->out_dir,
                  "output directory (default: out/data/<input file name without extension>)");
  cmd->add_option("--tokenizer", o->tokenizer,
                  "char (the text's characters), gpt2 (GPT-2's BPE, the bundled data/gpt2/) or a "
                  "directory with encoder.json and vocab.bpe ('tokenizer train' writes one)")
      ->capture_default_str();
  cmd->callback([o] {
    const std::string input = o->input.empty() ? default_dataset_path() : o->input;
    const std::string out_dir =
        o->out_dir.empty()
            ? (std::filesystem::path("out") / "data" / std::filesystem::path(input).stem()).string()
            : o->out_dir;
    const PrepareResult r = prepare_dataset(input, out_dir, o->tokenizer);
    std::printf("%s: %lld characters, vocabulary of %d (%s), %lld train and %lld val tokens -> %s\n",
                input.c_str(), static_cast<long long>(r.num_chars), r.vocab_size, o->tokenizer.c_str(),
                static_cast<long long>(r.train_tokens), static_cast<long long>(r.val_tokens),
                out_dir.c_str());
  });
}

}  // namespace scratchgpt::cli
