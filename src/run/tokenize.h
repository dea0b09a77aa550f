// tokenize.h: what 'scratchgpt tokenize' does: text to token ids (one line, separated by spaces)
// or, with decode, ids back to the text's exact bytes, with GPT-2's tokenizer or one in a
// directory of the same two files. Leaves out: the character tokenizer (prepare's vocab.json).
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

}  // namespace scratchgpt
