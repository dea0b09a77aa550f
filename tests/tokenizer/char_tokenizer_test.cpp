// char_tokenizer_test.cpp: the character vocabulary against Python's sorted(set(text)), encode /
// decode round trips (multi-byte UTF-8 included), and every kind of bad input named in the error.
#include "tokenizer/char_tokenizer.h"

#include <gtest/gtest.h>

#include "core/check.h"
#include "data/file_io.h"
#include "core/utf8.h"
#include "test_util.h"

using namespace scratchgpt;

namespace {

using test::error_of;

}  // namespace

TEST(CharTokenizer, VocabularyIsSortedCodePointsAsPython) {
  // Python: sorted(set('hello wörld🙂 ñ€'))
  const CharTokenizer tok =
      CharTokenizer::from_text("hello w\xC3\xB6rld\xF0\x9F\x99\x82 \xC3\xB1\xE2\x82\xAC");
  const std::vector<std::string> want = {" ",
                                         "d",
                                         "e",
                                         "h",
                                         "l",
                                         "o",
                                         "r",
                                         "w",
                                         "\xC3\xB1",
                                         "\xC3\xB6",
                                         "\xE2\x82\xAC",
                                         "\xF0\x9F\x99\x82"};
  EXPECT_EQ(tok.chars(), want);
  EXPECT_EQ(tok.vocab_size(), 12);
}

TEST(CharTokenizer, TinyShakespeareHasNanoGPTsVocabulary) {
  const std::string text =
      read_file(std::string(SCRATCHGPT_FIXTURES) + "/../../data/tinyshakespeare.txt");
  const CharTokenizer tok = CharTokenizer::from_text(text);
  // nanoGPT data/shakespeare_char/prepare.py prints these 65 characters.
  const std::string want = "\n !$&',-.3:;?ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz";
  ASSERT_EQ(tok.vocab_size(), 65);
  std::string got;
  for (const auto& c : tok.chars()) got += c;
  EXPECT_EQ(got, want);
  // stoi: 'a' is index 39 in nanoGPT's meta.pkl.
  EXPECT_EQ(tok.encode("a")[0], 39);
  EXPECT_EQ(tok.decode(tok.encode(text.substr(0, 5000))), text.substr(0, 5000));
}

TEST(CharTokenizer, RoundTripMultiByte) {
  const std::string text = "Grüße, 世界! \xF0\x9F\x99\x82\nżółw";
  const CharTokenizer tok = CharTokenizer::from_text(text);
  const std::vector<int32_t> ids = tok.encode(text);
  EXPECT_EQ(ids.size(), 17u);  // code points (Python len), not bytes
  EXPECT_EQ(tok.decode(ids), text);
  // Ids are positions in the sorted vocabulary.
  for (size_t i = 1; i < tok.chars().size(); ++i) {
    size_t p0 = 0, p1 = 0;
    uint32_t a = 0, b = 0;
    utf8_next(tok.chars()[i - 1], p0, &a);
    utf8_next(tok.chars()[i], p1, &b);
    EXPECT_LT(a, b);
  }
  const CharTokenizer back = CharTokenizer::from_json(tok.to_json());
  EXPECT_EQ(back.chars(), tok.chars());
  EXPECT_EQ(back.encode(text), ids);
}

TEST(CharTokenizer, UnknownCharactersAreNamed) {
  const CharTokenizer tok = CharTokenizer::from_text("abc");
  const std::string err = error_of([&] { tok.encode("abxcé"); });
  EXPECT_NE(err.find("'x' (U+0078)"), std::string::npos) << err;
  EXPECT_NE(err.find("U+00E9"), std::string::npos) << err;
  EXPECT_NE(err.find("2 character(s)"), std::string::npos) << err;
}

TEST(CharTokenizer, InvalidUtf8NamesTheByteOffset) {
  // 0xFF at offset 3; an overlong '/' (C0 AF) at 2; a surrogate (ED A0 80) at 1; truncated at 4.
  EXPECT_NE(error_of([] { CharTokenizer::from_text("abc\xFFz"); }).find("byte offset 3"),
            std::string::npos);
  EXPECT_NE(error_of([] { CharTokenizer::from_text("ab\xC0\xAF"); }).find("byte offset 2"),
            std::string::npos);
  EXPECT_NE(error_of([] { CharTokenizer::from_text("a\xED\xA0\x80"); }).find("byte offset 1"),
            std::string::npos);
  EXPECT_NE(error_of([] { CharTokenizer::from_text("abcd\xE2\x82"); }).find("byte offset 4"),
            std::string::npos);
  EXPECT_EQ(utf8_invalid_offset("ok \xF0\x9F\x99\x82"), std::string::npos);
  EXPECT_NE(error_of([] { CharTokenizer::from_text(""); }), "");
}

TEST(CharTokenizer, BadVocabularyJsonIsAnError) {
  EXPECT_NE(error_of([] { CharTokenizer::from_json("not json"); }), "");
  EXPECT_NE(error_of([] { CharTokenizer::from_json(R"({"chars": ["b", "a"]})"); }), "");
  EXPECT_NE(error_of([] { CharTokenizer::from_json(R"({"chars": ["ab"]})"); }), "");
  EXPECT_NE(error_of([] { CharTokenizer::from_json(R"({"chars": ["a"], "vocab_size": 2})"); }), "");
  const CharTokenizer tok = CharTokenizer::from_text("ab");
  EXPECT_NE(error_of([&] { tok.decode({0, 2}); }), "");
}
