// utf8_test.cpp: utf8_replace_invalid against Python's own decoder (bytes.decode("utf-8",
// errors="replace"), the fixture of tools/make_utf8_fixtures.py: what tiktoken and nanoGPT's
// sample.py print), and the identity it must keep: valid UTF-8 passes unchanged, and the output
// is always valid.
#include "core/utf8.h"

#include <gtest/gtest.h>

#include <fstream>
#include <random>

#include "test_util.h"

using namespace scratchgpt;
using scratchgpt::test::fixture_path;

namespace {

std::string from_hex(const std::string& hex) {
  std::string out;
  for (size_t i = 0; i + 1 < hex.size(); i += 2)
    out += static_cast<char>(std::stoi(hex.substr(i, 2), nullptr, 16));
  return out;
}

}  // namespace

TEST(Utf8ReplaceInvalid, AgreesWithPythonsDecoder) {
  std::ifstream in(fixture_path("core/utf8_replace.txt"));
  ASSERT_TRUE(in) << "missing fixture core/utf8_replace.txt";
  std::string in_hex, want_hex;
  int cases = 0, replaced = 0;
  while (in >> in_hex >> want_hex) {
    const std::string bytes = from_hex(in_hex), want = from_hex(want_hex);
    const std::string got = utf8_replace_invalid(bytes);
    ASSERT_EQ(got, want) << "case " << cases << ": bytes " << in_hex;
    replaced += got != bytes;
    ++cases;
  }
  EXPECT_GT(cases, 1000);
  EXPECT_GT(replaced, cases / 4);  // the fixture exercises the replacement, not only valid text
}

TEST(Utf8ReplaceInvalid, LeavesValidTextAloneAndAlwaysGivesValidText) {
  std::mt19937 gen(11);
  for (int trial = 0; trial < 3000; ++trial) {
    std::string valid, any;
    for (int i = 0; i < 10; ++i) {
      uint32_t cp = gen() % 0x110000;
      if (cp >= 0xD800 && cp <= 0xDFFF) cp = 'x';
      valid += utf8_encode(cp);
      any += static_cast<char>(gen() & 0xFF);
    }
    ASSERT_EQ(utf8_replace_invalid(valid), valid);
    ASSERT_EQ(utf8_invalid_offset(utf8_replace_invalid(any)), std::string::npos);
  }
  // Read by eye: a cut 3-byte character is one U+FFFD; a surrogate's three bytes are three.
  EXPECT_EQ(utf8_replace_invalid("a\xE6\x97"), "a\xEF\xBF\xBD");
  EXPECT_EQ(utf8_replace_invalid("\xED\xA0\x80"), "\xEF\xBF\xBD\xEF\xBF\xBD\xEF\xBF\xBD");
}
