// token_file_fuzz.cpp: libFuzzer harness for parse_token_file (train.bin, val.bin, in our format,
// nanoGPT's and llm.c's). A fuzzer cannot
// forge the header's checksum, so the harness also feeds the input with its checksum recomputed:
// every accepted file has ids below its vocab_size and exactly the count its header gives.
#include <cstddef>
#include <cstdint>
#include <string>

#include "core/check.h"
#include "data/token_file.h"

namespace {
uint64_t fnv1a(const char* p, size_t n) {
  uint64_t h = 0xcbf29ce484222325ULL;
  for (size_t i = 0; i < n; ++i) {
    h ^= static_cast<uint8_t>(p[i]);
    h *= 0x100000001b3ULL;
  }
  return h;
}

void check(const std::string& bytes) {
  try {
    // 300: as if --vocab-size were given, so nanoGPT's raw format is tried too.
    const scratchgpt::TokenFile tf = scratchgpt::parse_token_file(bytes, "fuzz", 300);
    for (uint32_t t : tf.tokens)
      if (t >= static_cast<uint32_t>(tf.vocab_size)) __builtin_trap();  // an id outside the vocabulary
    size_t header = 0, width = 2;
    if (tf.format == scratchgpt::TokenFormat::kScratchgpt) header = 32, width = bytes[20] == 4 ? 4 : 2;
    if (tf.format == scratchgpt::TokenFormat::kLlmc) header = 1024;
    if (header + width * tf.tokens.size() != bytes.size()) __builtin_trap();  // not every byte read
  } catch (const scratchgpt::Error&) {
  }
}
}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string bytes(reinterpret_cast<const char*>(data), size);
  check(bytes);
  if (bytes.size() >= 32) {
    const uint64_t h = fnv1a(bytes.data() + 32, bytes.size() - 32);
    for (int i = 0; i < 8; ++i) bytes[24 + static_cast<size_t>(i)] = static_cast<char>(h >> (8 * i));
    check(bytes);
  }
  return 0;
}
