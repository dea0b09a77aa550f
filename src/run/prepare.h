// prepare.h: what 'scratchgpt prepare' does: tokenize a text into train/val token files and the
// tokenizer beside them (data/prepare.h), in our format, nanoGPT's or llm.c's, and say what it
// wrote. Leaves out: texts that do not fit in memory.
#pragma once

#include <cstdio>
#include <string>

namespace scratchgpt {

struct PrepareRequest {
  std::string input;               // a UTF-8 text file ("": the bundled Tiny Shakespeare)
  std::string out_dir;             // "": out/data/<input file name without extension>
  std::string tokenizer = "char";  // char, gpt2 or a directory with encoder.json and vocab.bpe
  std::string format = "scratchgpt";  // scratchgpt, nanogpt or llmc (data/token_file.h)
  bool overwrite = false;  // --overwrite: replace files of the directory that differ
};

void run_prepare(const PrepareRequest& req, std::FILE* out);

}  // namespace scratchgpt
