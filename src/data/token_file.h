// token_file.h: token files (train.bin, val.bin): a small header, then uint16 token ids.
// Format, all little-endian (version 1, 32-byte header):
//   offset  0  char[4]  magic "SGTK"
//   offset  4  uint32   version = 1
//   offset  8  uint64   count: number of tokens that follow
//   offset 16  uint32   vocab_size: every token id is < vocab_size (<= 65535)
//   offset 20  uint32   reserved = 0
//   offset 24  uint64   checksum: FNV-1a 64 over the token bytes
//   offset 32  uint16   tokens[count]
// Every defect (bad magic, unknown version, size not matching count, checksum, id out of range)
// is an Error naming the file. Leaves out: ids >= 65536 (BPE vocabularies would need uint32).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace scratchgpt {

inline constexpr uint32_t kTokenFileVersion = 1;
inline constexpr size_t kTokenFileHeaderBytes = 32;

// Writes atomically (tmp + fsync + rename).
void write_token_file(const std::string& path, const std::vector<uint16_t>& tokens, int vocab_size);

struct TokenFile {
  std::vector<uint16_t> tokens;
  int vocab_size = 0;
};
TokenFile read_token_file(const std::string& path);
// The same over bytes in memory; path only names them in errors. The fuzzers' entry point.
TokenFile parse_token_file(const std::string& bytes, const std::string& path);

}  // namespace scratchgpt
