// token_file.h: token files (train.bin, val.bin) in the three formats users bring, read and written:
//
//   scratchgpt  ours (version 2), all little-endian, a 32-byte header then the ids:
//     offset  0  char[4]  magic "SGTK"
//     offset  4  uint32   version = 2 (version 1, uint16 ids only, is still read)
//     offset  8  uint64   count: number of tokens that follow
//     offset 16  uint32   vocab_size: every token id is < vocab_size
//     offset 20  uint32   token_bytes: 2 (uint16 ids, vocabularies up to 65536) or 4 (uint32);
//                         version 1 has 0 here and means 2
//     offset 24  uint64   checksum: FNV-1a 64 over the token bytes
//     offset 32  uint16 or uint32 tokens[count]
//   nanogpt     nanoGPT's prepare.py output: uint16 ids and nothing else (no header, no vocabulary
//               size: the reader must be told it)
//   llmc        llm.c's token shards: 256 int32 (1024 bytes) of header, [0] = magic 20240520,
//               [1] = version 1, [2] = count, then uint16 ids of GPT-2's BPE (50257 tokens)
//
// Reading tells the formats apart by their headers: SGTK or llm.c's magic, and the rest of that
// header agreeing with the file (for ours, its count with the size or its checksum with the ids;
// for llm.c's, version 1 and its count with the size); else nanoGPT's raw ids when a vocabulary
// size is given. Raw ids can spell either magic (18259 19284 is "SGTK"), so a magic whose header
// does not hold is read as raw ids when a vocabulary size is given, and is an Error otherwise.
// Every defect (bad magic, unknown version, size not matching count, checksum, id out of range)
// is an Error naming the file and, where in doubt, the format it was read as. In memory the ids
// are uint32.
// Leaves out: llm.c's uint32 shards of other tokenizers (magic 20240801), memory-mapped reading.
#pragma once

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

namespace scratchgpt {

enum class TokenFormat { kScratchgpt, kNanoGpt, kLlmc };
inline constexpr std::pair<TokenFormat, const char*> kTokenFormatNames[] = {
    {TokenFormat::kScratchgpt, "scratchgpt"},
    {TokenFormat::kNanoGpt, "nanogpt"},
    {TokenFormat::kLlmc, "llmc"}};
// "scratchgpt", "nanogpt", "llmc" and back; an unknown name is an Error listing the three.
const char* token_format_name(TokenFormat f);
TokenFormat token_format_from_name(const std::string& name);

inline constexpr uint32_t kTokenFileVersion = 2;
inline constexpr size_t kTokenFileHeaderBytes = 32;
inline constexpr int32_t kLlmcMagic = 20240520;
inline constexpr size_t kLlmcHeaderBytes = 256 * 4;
inline constexpr int kGpt2VocabSize = 50257;  // what every llm.c shard of magic 20240520 holds

// Writes atomically (tmp + fsync + rename). nanogpt and llmc hold uint16 ids only (vocab_size up
// to 65536); llmc's vocabulary is GPT-2's.
void write_token_file(const std::string& path, const std::vector<uint32_t>& tokens, int vocab_size,
                      TokenFormat format = TokenFormat::kScratchgpt);
// The same file's bytes, for a caller that decides when (and whether) to write them.
std::string token_file_bytes(const std::vector<uint32_t>& tokens, int vocab_size,
                             TokenFormat format = TokenFormat::kScratchgpt);

struct TokenFile {
  std::vector<uint32_t> tokens;
  int vocab_size = 0;
  TokenFormat format = TokenFormat::kScratchgpt;
};
// raw_vocab_size: the vocabulary of a nanoGPT raw file (which does not say), as the user gave it
// (--vocab-size); 0 when not known, and then a file that is neither ours nor llm.c's is an Error
// that says to pass --vocab-size. vocab_beside: the vocabulary of the tokenizer found beside the
// file, which reads a file without either magic as raw ids but, unlike the user's word, never a
// file that starts with a magic (a damaged file of ours stays an error).
TokenFile read_token_file(const std::string& path, int raw_vocab_size = 0, int vocab_beside = 0);
// The same over bytes in memory; path only names them in errors. The fuzzers' entry point.
TokenFile parse_token_file(const std::string& bytes, const std::string& path,
                           int raw_vocab_size = 0, int vocab_beside = 0);

}  // namespace scratchgpt
