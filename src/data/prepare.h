// prepare.h: dataset preparation, nanoGPT's shakespeare_char/prepare.py: read a UTF-8 text, build
// the character vocabulary, encode, split 90/10 into train and val, and write to a directory:
//   train.bin, val.bin   token files (token_file.h)
//   vocab.json           the vocabulary (CharTokenizer::to_json)
//   meta.json            source path, character count, vocab size, split sizes
// Leaves out: BPE tokenization, datasets that do not fit in memory.
#pragma once

#include <cstdint>
#include <string>

namespace scratchgpt {

struct PrepareResult {
  int64_t num_chars = 0;
  int vocab_size = 0;
  int64_t train_tokens = 0;
  int64_t val_tokens = 0;
};

// Errors: missing, empty or non-UTF-8 input (naming the byte offset), vocabulary > 65535, an
// output directory that cannot be written.
PrepareResult prepare_dataset(const std::string& input_path, const std::string& out_dir);

// The bundled data/tinyshakespeare.txt: looked up under the current directory and its parents,
// then under the source tree this binary was built from. An Error if none exists.
std::string default_dataset_path();

}  // namespace scratchgpt
