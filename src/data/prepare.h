// prepare.h: dataset preparation, nanoGPT's shakespeare_char/prepare.py: read a UTF-8 text, build
// the character vocabulary, encode, split 90/10 into train and val, and write to a directory:
//   train.bin, val.bin   token files (token_file.h)
//   vocab.json           the vocabulary (CharTokenizer::to_json)
//   meta.json            source path, character count, vocab size, split sizes
// With a BPE tokenizer: nanoGPT's data/shakespeare/prepare.py (90% of the characters, then
// GPT-2's tokens). Leaves out: datasets that do not fit in memory.
#pragma once

#include <cstdint>
#include <string>

#include "data/token_file.h"

namespace scratchgpt {

struct PrepareResult {
  int64_t num_chars = 0;
  int vocab_size = 0;
  int64_t train_tokens = 0;
  int64_t val_tokens = 0;
};

// Errors: missing, empty or non-UTF-8 input (naming the byte offset), a vocabulary the format
// cannot hold, an output directory that cannot be written.
// tokenizer: "char" (the vocabulary of the text's characters, written as vocab.json), "gpt2" or
// a directory with encoder.json and vocab.bpe (copied beside the token files, so train, eval and
// sample find the tokenizer there).
// format: the token files' format (token_file.h): ours or nanoGPT's raw uint16 ids, named
// train.bin and val.bin; or llm.c's data step (GPT-2's tokens only), exactly as llm.c's
// dev/data/tinyshakespeare.py: <|endoftext|> before each blank-line section, the first 32,768
// tokens val, tiny_shakespeare_{val,train}.bin and gpt2_tokenizer.bin.
// The directory's files are the user's: a file prepare would write that exists with other bytes,
// or one of an earlier prepare's that it would remove (another tokenizer's vocabulary), is an
// Error naming it and --overwrite, before anything is written, unless `overwrite`. Preparing the
// same input the same way again rewrites identical files, so it needs no --overwrite.
PrepareResult prepare_dataset(const std::string& input_path, const std::string& out_dir,
                              const std::string& tokenizer = "char",
                              TokenFormat format = TokenFormat::kScratchgpt,
                              bool overwrite = false);

// The bundled data/tinyshakespeare.txt: looked up under the current directory and its parents,
// then under the source tree this binary was built from. An Error if none exists.
std::string default_dataset_path();

}  // namespace scratchgpt
