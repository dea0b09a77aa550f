// bpe_train.h: learning a byte-level BPE from a text (Karpathy's minbpe, Raschka's chapter 2):
// split the text with GPT-2's pre-tokenizer, start from the 256 byte tokens, and repeatedly merge
// the adjacent pair that occurs most often (counted within pieces, never across them) into a new
// token, until the vocabulary has the size asked for. Ties go to the pair of smallest (left id,
// right id), so training is deterministic. The result is written in GPT-2's own two files, so it
// loads with BpeTokenizer::load like GPT-2's. Readable twin: train_bpe_readable (recounts every
// pair before each merge), tested to learn the same merges.
// Leaves out: regex patterns other than GPT-2's, special tokens other than <|endoftext|>.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace scratchgpt {

struct TrainedBpe {
  std::vector<std::string> tokens;                  // id -> bytes; 0..255 are the bytes
  std::vector<std::pair<int32_t, int32_t>> merges;  // in the order learned (rank)
  int32_t eot = -1;                                 // <|endoftext|>, the last id
};

// vocab_size counts the 256 byte tokens, the merged tokens and <|endoftext|>; it must be at least
// 258, room for one merge. Stops early when no pair occurs any more. text must be valid UTF-8 and
// give at least one merge (BpeTokenizer::load needs one); otherwise an Error, as is an empty text.
TrainedBpe train_bpe(std::string_view text, int vocab_size);
// The same by recounting every pair of every piece before each merge: slow, obviously right.
TrainedBpe train_bpe_readable(std::string_view text, int vocab_size);

// Writes dir/encoder.json and dir/vocab.bpe (atomically; dir is created).
void save_bpe(const TrainedBpe& bpe, const std::string& dir);

}  // namespace scratchgpt
