// bpe_fuzz.cpp: libFuzzer harness for the BPE tokenizer's files and its encoder. The input is
// encoder.json, a NUL byte, vocab.bpe, a NUL byte, then a text. An accepted tokenizer must
// round-trip the text when it is valid UTF-8 (decode(encode(text)) == text) and refuse it with an
// Error naming the byte offset otherwise, and its two merge loops (merge_scan, merge_heap) must
// give the same ids for the whole text taken as one piece, whatever order the file's merges are
// in; nothing may crash, hang or read out of bounds.
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "core/check.h"
#include "tokenizer/bpe.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace scratchgpt;
  const std::string in(reinterpret_cast<const char*>(data), size);
  const size_t a = in.find('\0');
  if (a == std::string::npos) return 0;
  const size_t b = in.find('\0', a + 1);
  if (b == std::string::npos) return 0;
  BpeTokenizer tok;
  try {
    tok = BpeTokenizer::parse(in.substr(0, a), in.substr(a + 1, b - a - 1), "fuzz");
  } catch (const Error&) {
    return 0;
  }
  const std::string text = in.substr(b + 1);
  std::vector<int32_t> scan, heap;
  tok.merge_scan(text, scan);
  tok.merge_heap(text, heap);
  if (scan != heap) __builtin_trap();
  try {
    for (bool special : {false, true})
      if (tok.decode(tok.encode(text, special)) != text) __builtin_trap();
  } catch (const Error&) {
  }
  return 0;
}
