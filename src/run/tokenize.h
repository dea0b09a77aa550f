// tokenize.h: what 'scratchgpt tokenize' does: text to token ids (one line, separated by spaces)
// or, with decode, ids back to the text's exact bytes, with GPT-2's tokenizer or one in a
// directory of the same two files; and training such a tokenizer on a text. Leaves out: the
// character tokenizer (prepare's vocab.json).
#pragma once

#include <cstdio>
#include <string>

namespace scratchgpt {

struct TokenizeRequest {
  std::string tokenizer = "gpt2";  // "gpt2" (data/gpt2/) or a directory with encoder.json, vocab.bpe
  std::string input = "-";         // a file, or "-" for standard input
  bool allow_special = false;      // <|endoftext|> is the special token, not text
  bool decode = false;             // input holds ids; write their bytes
  int threads = 1;                 // encode on this many threads (0: all cores); same ids
};

void run_tokenize(const TokenizeRequest& req, std::FILE* out);

// 'scratchgpt tokenizer train': learn a byte-level BPE from a text (tokenizer/bpe_train.h) and
// write it as encoder.json + vocab.bpe, the format 'tokenize --tokenizer DIR' reads.
struct TokenizerTrainRequest {
  std::string input;      // a UTF-8 text file (default: the bundled Tiny Shakespeare)
  int vocab_size = 1024;  // bytes + merges + <|endoftext|>
  std::string out;        // the directory to write
  bool overwrite = false;  // --overwrite: replace its encoder.json and vocab.bpe
};

void run_tokenizer_train(const TokenizerTrainRequest& req, std::FILE* out);

}  // namespace scratchgpt
