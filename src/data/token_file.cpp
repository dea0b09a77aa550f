// token_file.cpp: see token_file.h.
#include "data/token_file.h"

#include <cstring>

#include "core/check.h"
#include "data/file_io.h"

namespace scratchgpt {

namespace {

constexpr char kMagic[4] = {'S', 'G', 'T', 'K'};

uint64_t fnv1a(const void* data, size_t n) {
  uint64_t h = 0xcbf29ce484222325ULL;
  const auto* p = static_cast<const uint8_t*>(data);
  for (size_t i = 0; i < n; ++i) {
    h ^= p[i];
    h *= 0x100000001b3ULL;
  }
  return h;
}

template <typename U>
void put(std::string& s, size_t off, U v) {
  for (size_t i = 0; i < sizeof(U); ++i) s[off + i] = static_cast<char>((v >> (8 * i)) & 0xFF);
}
template <typename U>
U get(const std::string& s, size_t off) {
  U v = 0;
  for (size_t i = 0; i < sizeof(U); ++i)
    v |= static_cast<U>(static_cast<uint8_t>(s[off + i])) << (8 * i);
  return v;
}

}  // namespace

void write_token_file(const std::string& path, const std::vector<uint16_t>& tokens,
                      int vocab_size) {
  SG_CHECK(vocab_size > 0 && vocab_size <= 65535, "token files hold vocabularies of 1..65535, got ",
           vocab_size);
  std::string bytes(kTokenFileHeaderBytes + 2 * tokens.size(), '\0');
  for (size_t i = 0; i < tokens.size(); ++i) {
    SG_CHECK(tokens[i] < vocab_size, "token ", tokens[i], " at ", i, " is >= vocab_size ",
             vocab_size);
    put<uint16_t>(bytes, kTokenFileHeaderBytes + 2 * i, tokens[i]);
  }
  std::memcpy(bytes.data(), kMagic, 4);
  put<uint32_t>(bytes, 4, kTokenFileVersion);
  put<uint64_t>(bytes, 8, tokens.size());
  put<uint32_t>(bytes, 16, static_cast<uint32_t>(vocab_size));
  put<uint32_t>(bytes, 20, 0);
  put<uint64_t>(bytes, 24,
                fnv1a(bytes.data() + kTokenFileHeaderBytes, bytes.size() - kTokenFileHeaderBytes));
  write_file_atomic(path, bytes);
}

TokenFile read_token_file(const std::string& path) { return parse_token_file(read_file(path), path); }

TokenFile parse_token_file(const std::string& bytes, const std::string& path) {
  const std::string fix = ": run 'scratchgpt prepare' again to rebuild it";
  SG_CHECK(bytes.size() >= kTokenFileHeaderBytes, "token file ", path, " is truncated (",
           bytes.size(), " bytes, shorter than its header)", fix);
  SG_CHECK(std::memcmp(bytes.data(), kMagic, 4) == 0, "token file ", path,
           " has a bad magic number (not a scratchgpt token file or corrupted)", fix);
  const auto version = get<uint32_t>(bytes, 4);
  SG_CHECK(version == kTokenFileVersion, "token file ", path, " has version ", version,
           ", this build reads version ", kTokenFileVersion, fix);
  const auto count = get<uint64_t>(bytes, 8);
  const auto vocab = get<uint32_t>(bytes, 16);
  SG_CHECK(count <= (bytes.size() - kTokenFileHeaderBytes) / 2 &&
               kTokenFileHeaderBytes + 2 * count == bytes.size(),
           "token file ", path, " says it holds ", count, " tokens but its size is ", bytes.size(),
           " bytes (truncated or corrupted)", fix);
  SG_CHECK(vocab >= 1 && vocab <= 65535, "token file ", path, " has a bad vocab_size ", vocab, fix);
  SG_CHECK(get<uint32_t>(bytes, 20) == 0, "token file ", path, " has a corrupted header", fix);
  SG_CHECK(get<uint64_t>(bytes, 24) ==
               fnv1a(bytes.data() + kTokenFileHeaderBytes, bytes.size() - kTokenFileHeaderBytes),
           "token file ", path, " fails its checksum (corrupted)", fix);
  TokenFile tf;
  tf.vocab_size = static_cast<int>(vocab);
  tf.tokens.resize(count);
  for (size_t i = 0; i < count; ++i) {
    tf.tokens[i] = get<uint16_t>(bytes, kTokenFileHeaderBytes + 2 * i);
    SG_CHECK(tf.tokens[i] < vocab, "token file ", path, ": token ", tf.tokens[i], " at ", i,
             " is >= vocab_size ", vocab, fix);
  }
  return tf;
}

}  // namespace scratchgpt
