// token_file.cpp: see token_file.h.
#include "data/token_file.h"

#include <cstring>

#include "core/check.h"
#include "core/enum_names.h"
#include "data/file_io.h"

namespace scratchgpt {

namespace {

constexpr char kMagic[4] = {'S', 'G', 'T', 'K'};
constexpr int kMaxVocab = 1 << 30;  // ids fit an int32 with room to spare

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

// Appends count ids of width bytes each from bytes[off...], checking each against vocab.
void read_ids(const std::string& bytes, size_t off, uint64_t count, size_t width, uint32_t vocab,
              const std::string& what, const std::string& fix, std::vector<uint32_t>& out) {
  out.resize(count);
  for (size_t i = 0; i < count; ++i) {
    out[i] = width == 2 ? get<uint16_t>(bytes, off + 2 * i) : get<uint32_t>(bytes, off + 4 * i);
    SG_CHECK(out[i] < vocab, what, ": token ", out[i], " at ", i, " is >= vocab_size ", vocab, fix);
  }
}

// A nanoGPT raw file can start with the bytes of either magic (ids 18259 19284 spell "SGTK";
// 55432 308 spell llm.c's 20240520), so four bytes do not tell the formats apart. These say
// whether the rest of the header agrees: for ours a known version and width, and a count that is
// exactly the rest of the file or a checksum that matches it (64 bits each: raw ids match by
// chance once in 2^64); for llm.c's, version 1 and a count that is exactly the rest.
bool scratchgpt_header_holds(const std::string& bytes) {
  if (bytes.size() < kTokenFileHeaderBytes) return false;
  const auto version = get<uint32_t>(bytes, 4), width_field = get<uint32_t>(bytes, 20);
  if (!(version == 1 ? width_field == 0
                     : version == kTokenFileVersion && (width_field == 2 || width_field == 4)))
    return false;
  const size_t width = version == 1 ? 2 : width_field;
  const size_t payload = bytes.size() - kTokenFileHeaderBytes;
  const auto count = get<uint64_t>(bytes, 8);
  return (count <= payload / width && count * width == payload) ||
         get<uint64_t>(bytes, 24) == fnv1a(bytes.data() + kTokenFileHeaderBytes, payload);
}
bool llmc_header_holds(const std::string& bytes) {
  return bytes.size() >= kLlmcHeaderBytes && get<uint32_t>(bytes, 4) == 1 &&
         uint64_t{get<uint32_t>(bytes, 8)} * 2 == bytes.size() - kLlmcHeaderBytes;
}

// what: the file as errors name it ("token file PATH", and the format assumed when that is in
// doubt); more_fix: advice after the usual fix.
TokenFile parse_scratchgpt(const std::string& bytes, const std::string& what,
                           const std::string& more_fix) {
  const std::string fix = ": run 'scratchgpt prepare' again to rebuild it" + more_fix;
  SG_CHECK(bytes.size() >= kTokenFileHeaderBytes, what, " is truncated (", bytes.size(),
           " bytes, shorter than its header)", fix);
  const auto version = get<uint32_t>(bytes, 4);
  SG_CHECK(version == 1 || version == kTokenFileVersion, what, " has version ", version,
           ", this build reads versions 1 and ", kTokenFileVersion, fix);
  const auto count = get<uint64_t>(bytes, 8);
  const auto vocab = get<uint32_t>(bytes, 16);
  const auto width_field = get<uint32_t>(bytes, 20);
  SG_CHECK(version == 1 ? width_field == 0 : (width_field == 2 || width_field == 4), what,
           " has a corrupted header (token_bytes ", width_field, ")", fix);
  const size_t width = version == 1 ? 2 : width_field;
  const size_t payload = bytes.size() - kTokenFileHeaderBytes;
  SG_CHECK(count <= payload / width && count * width == payload, what, " says it holds ", count,
           " tokens but its size is ", bytes.size(), " bytes (truncated or corrupted)", fix);
  SG_CHECK(vocab >= 1 && vocab <= (width == 2 ? 65536u : static_cast<uint32_t>(kMaxVocab)), what,
           " has a bad vocab_size ", vocab, fix);
  SG_CHECK(get<uint64_t>(bytes, 24) == fnv1a(bytes.data() + kTokenFileHeaderBytes, payload), what,
           " fails its checksum (corrupted)", fix);
  TokenFile tf;
  tf.vocab_size = static_cast<int>(vocab);
  tf.format = TokenFormat::kScratchgpt;
  read_ids(bytes, kTokenFileHeaderBytes, count, width, vocab, what, fix, tf.tokens);
  return tf;
}

TokenFile parse_llmc(const std::string& bytes, const std::string& what,
                     const std::string& more_fix) {
  const std::string fix =
      ": write it again with llm.c's data scripts or 'scratchgpt prepare --format llmc'" + more_fix;
  SG_CHECK(bytes.size() >= kLlmcHeaderBytes, what, " is truncated (", bytes.size(),
           " bytes, shorter than its 1024-byte header)", fix);
  const auto version = get<uint32_t>(bytes, 4);
  SG_CHECK(version == 1, what, " has version ", version,
           ", this build reads version 1 (GPT-2's uint16 tokens)", fix);
  const auto count = get<uint32_t>(bytes, 8);
  SG_CHECK(static_cast<uint64_t>(count) * 2 == bytes.size() - kLlmcHeaderBytes, what,
           " says it holds ", count, " tokens but its size is ", bytes.size(),
           " bytes (truncated or corrupted)", fix);
  TokenFile tf;
  tf.vocab_size = kGpt2VocabSize;
  tf.format = TokenFormat::kLlmc;
  read_ids(bytes, kLlmcHeaderBytes, count, 2, kGpt2VocabSize, what, fix, tf.tokens);
  return tf;
}

TokenFile parse_nanogpt(const std::string& bytes, const std::string& what, int vocab,
                        const std::string& more_fix) {
  const std::string fix =
      ": check --vocab-size, or rebuild the file with nanoGPT's prepare.py" + more_fix;
  SG_CHECK(bytes.size() % 2 == 0, what, " has ", bytes.size(),
           " bytes, an odd count: not nanoGPT's raw uint16 ids (and no scratchgpt or llm.c "
           "header)",
           fix);
  SG_CHECK(vocab >= 1 && vocab <= 65536, "nanoGPT's raw token files hold uint16 ids, so a "
           "vocabulary of 1..65536, not ", vocab, fix);
  TokenFile tf;
  tf.vocab_size = vocab;
  tf.format = TokenFormat::kNanoGpt;
  read_ids(bytes, 0, bytes.size() / 2, 2, static_cast<uint32_t>(vocab), what, fix, tf.tokens);
  return tf;
}

}  // namespace

const char* token_format_name(TokenFormat f) {
  return enum_name<TokenFormat>(kTokenFormatNames, f);
}

TokenFormat token_format_from_name(const std::string& name) {
  return enum_from_name<TokenFormat>(kTokenFormatNames, name, "token file format");
}

void write_token_file(const std::string& path, const std::vector<uint32_t>& tokens, int vocab_size,
                      TokenFormat format) {
  write_file_atomic(path, token_file_bytes(tokens, vocab_size, format));
}

std::string token_file_bytes(const std::vector<uint32_t>& tokens, int vocab_size,
                             TokenFormat format) {
  SG_CHECK(vocab_size > 0 && vocab_size <= kMaxVocab, "token files hold vocabularies of 1..",
           kMaxVocab, ", got ", vocab_size);
  const bool wide = vocab_size > 65536;
  SG_CHECK(!wide || format == TokenFormat::kScratchgpt, token_format_name(format),
           " token files hold uint16 ids, so vocabularies up to 65536, not ", vocab_size,
           ": write --format scratchgpt");
  SG_CHECK(format != TokenFormat::kLlmc || vocab_size == kGpt2VocabSize,
           "llm.c's token shards hold GPT-2's tokens (", kGpt2VocabSize, "), not a vocabulary of ",
           vocab_size, ": prepare with --tokenizer gpt2, or write --format scratchgpt");
  SG_CHECK(format != TokenFormat::kLlmc || tokens.size() <= 0x7FFFFFFFu,
           "llm.c's token shards hold at most 2^31-1 tokens, got ", tokens.size());
  const size_t width = wide ? 4 : 2;
  const size_t header = format == TokenFormat::kScratchgpt ? kTokenFileHeaderBytes
                        : format == TokenFormat::kLlmc     ? kLlmcHeaderBytes
                                                           : 0;
  std::string bytes(header + width * tokens.size(), '\0');
  for (size_t i = 0; i < tokens.size(); ++i) {
    SG_CHECK(tokens[i] < static_cast<uint32_t>(vocab_size), "token ", tokens[i], " at ", i,
             " is >= vocab_size ", vocab_size);
    if (wide)
      put<uint32_t>(bytes, header + 4 * i, tokens[i]);
    else
      put<uint16_t>(bytes, header + 2 * i, static_cast<uint16_t>(tokens[i]));
  }
  if (format == TokenFormat::kScratchgpt) {
    std::memcpy(bytes.data(), kMagic, 4);
    put<uint32_t>(bytes, 4, kTokenFileVersion);
    put<uint64_t>(bytes, 8, tokens.size());
    put<uint32_t>(bytes, 16, static_cast<uint32_t>(vocab_size));
    put<uint32_t>(bytes, 20, static_cast<uint32_t>(width));
    put<uint64_t>(bytes, 24, fnv1a(bytes.data() + header, bytes.size() - header));
  } else if (format == TokenFormat::kLlmc) {
    put<uint32_t>(bytes, 0, static_cast<uint32_t>(kLlmcMagic));
    put<uint32_t>(bytes, 4, 1);
    put<uint32_t>(bytes, 8, static_cast<uint32_t>(tokens.size()));
  }
  return bytes;
}

TokenFile read_token_file(const std::string& path, int raw_vocab_size, int vocab_beside) {
  return parse_token_file(read_file(path), path, raw_vocab_size, vocab_beside);
}

TokenFile parse_token_file(const std::string& bytes, const std::string& path, int raw_vocab_size,
                           int vocab_beside) {
  const std::string file = "token file " + path;
  const bool ours = bytes.size() >= 4 && std::memcmp(bytes.data(), kMagic, 4) == 0;
  const bool llmc =
      bytes.size() >= 4 && get<uint32_t>(bytes, 0) == static_cast<uint32_t>(kLlmcMagic);
  if (!ours && !llmc) {
    if (raw_vocab_size == 0) raw_vocab_size = vocab_beside;
    SG_CHECK(raw_vocab_size > 0, file,
             " is neither a scratchgpt token file (bad magic number) nor an llm.c shard: if it is "
             "nanoGPT's raw uint16 ids, pass --vocab-size N (50257 for GPT-2's tokens); else run "
             "'scratchgpt prepare' again to rebuild it");
    return parse_nanogpt(bytes, file, raw_vocab_size, "");
  }
  const std::string magic = ours ? "scratchgpt's magic SGTK" : "llm.c's magic 20240520";
  const std::string format = ours ? "a scratchgpt token file" : "an llm.c shard";
  if (ours ? scratchgpt_header_holds(bytes) : llmc_header_holds(bytes))
    return ours ? parse_scratchgpt(bytes, file, "")
                : parse_llmc(bytes, "llm.c token shard " + path, "");
  // The magic, but not the rest of its header: a damaged file of that format, or nanoGPT's raw
  // ids that happen to start with the magic's bytes. With a vocabulary for raw files, the latter.
  if (raw_vocab_size > 0) {
    const std::string as_raw = file + " (read as nanoGPT's raw uint16 ids, as --vocab-size " +
                               "allows: it starts with " + magic +
                               " but the rest of the header does not match the file)";
    return parse_nanogpt(bytes, as_raw, raw_vocab_size,
                         "; if it is " + format + ", it is damaged: make it again");
  }
  const std::string what = file + " (read as " + format + " by its first 4 bytes, " + magic + ")";
  const std::string nanogpt = "; if it is nanoGPT's raw uint16 ids (whose first two can spell " +
                              magic + "), pass --vocab-size N";
  return ours ? parse_scratchgpt(bytes, what, nanogpt) : parse_llmc(bytes, what, nanogpt);
}

}  // namespace scratchgpt
