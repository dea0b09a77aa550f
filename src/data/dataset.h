// dataset.h: a prepared dataset directory (train.bin, val.bin, vocab.json) in memory, and
// get_batch, the lecture's random batches:
//   ix = torch.randint(len(data) - T, (B,));  x = data[i:i+T];  y = data[i+1:i+T+1]
// Leaves out: sequential (epoch) iteration and sharding across processes.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "core/rng.h"
#include "tokenizer/tokenizer.h"

namespace scratchgpt {

struct Dataset {
  Tokenizer tokenizer;  // vocab.json (characters), or encoder.json + vocab.bpe (BPE)
  std::vector<uint16_t> train, val;
  // Errors name the directory and say to run 'scratchgpt prepare'.
  static Dataset load(const std::string& dir);
};

// x, y (B, T): y is x shifted by one. Offsets come from rng.randint(ix, B, 0, n - T).
// An Error if the data is shorter than T + 1 tokens.
void get_batch(const uint16_t* data, int64_t n, int B, int T, Rng& rng, int32_t* x, int32_t* y);

}  // namespace scratchgpt
