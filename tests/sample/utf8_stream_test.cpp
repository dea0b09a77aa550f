// utf8_stream_test.cpp: Utf8HoldBack against its readable twin (what it writes after every push
// is the prefix the twin finds over all the bytes so far, on random chunkings of valid UTF-8 mixed
// with invalid bytes), and TextStream over GPT-2's tokens of text whose characters GPT-2 splits
// across tokens: every write is whole characters and the whole is decode(ids); over random ids,
// the written text is the U+FFFD replacement of the whole (as nanoGPT's sample.py prints it).
#include "sample/utf8_stream.h"

#include <gtest/gtest.h>

#include <random>

#include "core/utf8.h"
#include "run/sample.h"
#include "tokenizer/tokenizer.h"

using namespace scratchgpt;

TEST(Utf8HoldBack, AgreesWithReadableTwinOnRandomChunks) {
  // Pieces: ASCII, 2-, 3- and 4-byte characters, and bytes that are never valid where they stand.
  const std::vector<std::string> pieces = {
      "a",    "\n",   "\xC3\xA9", "\xE6\x97\xA5", "\xF0\x9F\x8E\x89",
      "\x80", "\xFF", "\xE2\x82", "\xC3",         "\xF0\x9F\x98"};
  std::mt19937 gen(7);
  for (int trial = 0; trial < 2000; ++trial) {
    std::string text;
    const int n = 1 + static_cast<int>(gen() % 12);
    for (int i = 0; i < n; ++i) text += pieces[gen() % pieces.size()];
    Utf8HoldBack h;
    std::string written;
    for (size_t pos = 0; pos < text.size();) {
      const size_t len = std::min<size_t>(1 + gen() % 4, text.size() - pos);
      written += h.push(std::string_view(text).substr(pos, len));
      pos += len;
      const std::string_view so_far = std::string_view(text).substr(0, pos);
      ASSERT_EQ(written.size(), utf8_complete_prefix_readable(so_far)) << "trial " << trial;
      ASSERT_EQ(written, so_far.substr(0, written.size()));
      ASSERT_LE(h.held(), 3u);
    }
    written += h.flush();
    ASSERT_EQ(written, text);  // nothing lost, nothing added
  }
  // The twin itself on cases read by eye.
  EXPECT_EQ(utf8_complete_prefix_readable("ab\xE6\x97"), 2u);  // a CJK character's first 2 bytes
  EXPECT_EQ(utf8_complete_prefix_readable("ab\xE6\x97\xA5"), 5u);  // ... and complete
  EXPECT_EQ(utf8_complete_prefix_readable("\xE6\x97x"), 3u);       // broken: passes as is
  EXPECT_EQ(utf8_complete_prefix_readable("\x80\x80\xF0\x9F\x8E"), 2u);
}

TEST(TextStream, WritesWholeCharactersOfTokensThatSplitThem) {
  const Tokenizer tok = Tokenizer::bpe("gpt2");
  // GPT-2 writes most of these characters as 2 or 3 byte tokens each.
  const std::string text =
      "日本語のテキストを少し。Ünïcödé façade — “quotes” 🎉🙂 Ελληνικά русский 中文 "
      "ok\n";
  const std::vector<int32_t> ids = tok.bpe().encode(text);
  std::string written;
  int writes = 0, split = 0;
  TextStream stream(tok, [&](std::string_view b) {
    ++writes;
    EXPECT_EQ(utf8_invalid_offset(std::string(b)), std::string::npos) << "a partial character";
    written += b;
  });
  for (int32_t id : ids) {
    const std::string& b = tok.decode_one(id);
    split += utf8_invalid_offset(b) != std::string::npos;  // this token holds part of a character
    stream.put(id);
  }
  stream.finish();
  EXPECT_GT(split, 10) << "the text should make GPT-2 split characters across tokens";
  EXPECT_EQ(written, tok.decode(ids));
  EXPECT_EQ(written, text);
  EXPECT_GT(writes, 10);
}

TEST(TextStream, WritesIllFormedBytesAsPythonsReplacementOfTheWholeText) {
  // Token ids chosen at random from GPT-2's byte tokens and pieces of characters: what the stream
  // writes, piece by piece, equals U+FFFD replacement of the whole decoded text (the property
  // TextStream::put relies on), and is valid UTF-8 even where the tokens are not.
  const Tokenizer tok = Tokenizer::bpe("gpt2");
  const std::vector<int32_t> some =
      tok.bpe().encode("日本語 🎉🙂 façade Ελληνικά ok\n");  // ids that cut characters
  std::mt19937 gen(5);
  int ill_formed = 0;
  for (int trial = 0; trial < 300; ++trial) {
    std::vector<int32_t> ids;
    for (int i = 0; i < 12; ++i)
      ids.push_back(gen() % 3 ? some[gen() % some.size()] : static_cast<int32_t>(gen() % 256));
    std::string written;
    TextStream stream(tok, [&](std::string_view b) { written += b; });
    for (int32_t id : ids) stream.put(id);
    stream.finish();
    const std::string raw = tok.decode(ids);
    ill_formed += utf8_invalid_offset(raw) != std::string::npos;
    ASSERT_EQ(written, utf8_replace_invalid(raw)) << "trial " << trial;
    ASSERT_EQ(utf8_invalid_offset(written), std::string::npos);
  }
  EXPECT_GT(ill_formed, 100);
}
