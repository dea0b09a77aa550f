// cmd_tokenize.cpp: 'scratchgpt tokenize' and 'scratchgpt tokenizer train': options ->
// TokenizeRequest / TokenizerTrainRequest; src/run/tokenize.h does the work.
#include <cstdio>
#include <memory>

#include "commands.h"
#include "run/tokenize.h"

namespace scratchgpt::cli {

void register_tokenize(CLI::App& app) {
  auto r = std::make_shared<TokenizeRequest>();
  auto* cmd = app.add_subcommand(
      "tokenize",
      "Text to GPT-2 token ids (one line, separated by spaces), exactly as OpenAI's tiktoken "
      "'gpt2' encoding; --decode turns ids back into the text's bytes");
  cmd->add_option("--tokenizer", r->tokenizer,
                  "gpt2 (the bundled data/gpt2/) or a directory with encoder.json and vocab.bpe")
      ->capture_default_str();
  cmd->add_option("--input", r->input, "a file, or - for standard input")->capture_default_str();
  cmd->add_flag("--allow-special", r->allow_special,
                "<|endoftext|> becomes the special token 50256 (default: it is text)");
  cmd->add_flag("--decode", r->decode, "read whitespace-separated ids and write their bytes");
  cmd->add_option("--threads", r->threads, "encode on this many threads (0: all cores)")
      ->capture_default_str();
  cmd->footer(
      "Examples:\n"
      "  echo \"Hello world\" | scratchgpt tokenize          # 15496 995 198\n"
      "  echo \"15496 995\" | scratchgpt tokenize --decode   # Hello world");
  cmd->callback([r] { run_tokenize(*r, stdout); });

  auto t = std::make_shared<TokenizerTrainRequest>();
  auto* tok = app.add_subcommand("tokenizer", "Byte-level BPE tokenizers of your own");
  tok->require_subcommand(1);
  auto* train = tok->add_subcommand(
      "train",
      "Learn a byte-level BPE from a text (GPT-2's pre-tokenizer, most frequent pair first, ties "
      "to the smallest ids) and write encoder.json + vocab.bpe for 'tokenize --tokenizer DIR'");
  train->add_option("--input", t->input,
                    "UTF-8 text file (default: the bundled data/tinyshakespeare.txt)");
  train
      ->add_option("--vocab-size", t->vocab_size,
                   "tokens in all: the 256 bytes, the merges and <|endoftext|>")
      ->capture_default_str();
  train->add_option("--out", t->out, "directory to write")->required();
  train->add_flag("--overwrite", t->overwrite,
                  "replace a tokenizer (encoder.json, vocab.bpe) already in --out");
  train->footer(
      "Example:\n"
      "  scratchgpt tokenizer train --vocab-size 8449 --out out/tok8k   # 8192 merges");
  tok->footer(
      "Example:\n"
      "  scratchgpt tokenizer train --vocab-size 8449 --out out/tok8k   # 8192 merges");
  train->callback([t] { run_tokenizer_train(*t, stdout); });
}

}  // namespace scratchgpt::cli
