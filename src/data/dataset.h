// dataset.h: a prepared dataset directory (train.bin, val.bin and a tokenizer) in memory, and
// get_batch, the lecture's random batches:
//   ix = torch.randint(len(data) - T, (B,));  x = data[i:i+T];  y = data[i+1:i+T+1]
// The directory may also be nanoGPT's (raw uint16 train.bin / val.bin) or llm.c's
// (*_train.bin / *_val.bin shards): token_file.h reads all three formats.
// Leaves out: sequential (epoch) iteration and sharding across processes.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "core/rng.h"
#include "data/token_file.h"
#include "tokenizer/tokenizer.h"

namespace scratchgpt {

struct Dataset {
  // vocab.json (characters) or encoder.json + vocab.bpe (BPE) in the directory; else GPT-2's for
  // llm.c's shards and for nanoGPT's raw files of 50257 tokens.
  Tokenizer tokenizer;
  TokenFormat format = TokenFormat::kScratchgpt;
  std::vector<uint32_t> train, val;  // token ids, each < tokenizer.vocab_size()
  // raw_vocab_size: the vocabulary of nanoGPT's raw files, which do not say it (--vocab-size);
  // 0: not given. Errors name the directory and the fix.
  static Dataset load(const std::string& dir, int raw_vocab_size = 0);
};

// x, y (B, T): y is x shifted by one. Offsets come from rng.randint(ix, B, 0, n - T).
// An Error if the data is shorter than T + 1 tokens.
void get_batch(const uint32_t* data, int64_t n, int B, int T, Rng& rng, int32_t* x, int32_t* y);

}  // namespace scratchgpt
