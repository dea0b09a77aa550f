// bpe_test.cpp: scratchgpt's GPT-2 tokenizer against OpenAI's tiktoken (fixtures written by
// tools/gen_bpe_fixtures.mjs from the npm package): every id of 3041 texts (hand-picked Unicode,
// whitespace, contractions, code, special-token look-alikes, long words, random mixes), ordinary
// and with <|endoftext|> allowed, and of all of Tiny Shakespeare; decode gives the bytes back;
// the fast merge equals GPT-2's readable loop; random UTF-8 round-trips; threads change nothing;
// bad input and bad files are one-line errors naming the problem.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include "core/check.h"
#include "core/utf8.h"
#include "tokenizer/bpe.h"
#include "tokenizer/pretokenize.h"

using namespace scratchgpt;
namespace fs = std::filesystem;

namespace {

std::string slurp(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

const BpeTokenizer& gpt2() {
  static const BpeTokenizer tok = BpeTokenizer::gpt2();
  return tok;
}

std::string error_of(const std::function<void()>& f) {
  try {
    f();
  } catch (const Error& e) {
    return e.what();
  }
  return "";
}

}  // namespace

TEST(Gpt2Bpe, EveryIdOfTheTiktokenCases) {
  const nlohmann::json j =
      nlohmann::json::parse(slurp(std::string(SCRATCHGPT_FIXTURES) + "/tokenizer/gpt2_cases.json"));
  ASSERT_GT(j["cases"].size(), 3000u);
  int checked = 0;
  for (const auto& c : j["cases"]) {
    const std::string text = c["text"];
    const auto ordinary = c["ordinary"].get<std::vector<int32_t>>();
    const auto special = c["special"].get<std::vector<int32_t>>();
    ASSERT_EQ(gpt2().encode(text), ordinary) << "text: [" << text << "]";
    ASSERT_EQ(gpt2().encode(text, /*allow_special=*/true), special) << "text: [" << text << "]";
    EXPECT_EQ(gpt2().decode(ordinary), text);
    EXPECT_EQ(gpt2().decode(special), text);
    ++checked;
  }
  EXPECT_EQ(checked, static_cast<int>(j["cases"].size()));
  EXPECT_EQ(gpt2().vocab_size(), 50257);
  EXPECT_EQ(gpt2().eot_id(), 50256);
}

TEST(Gpt2Bpe, AllOfTinyShakespeare) {
  const std::string text = slurp(std::string(SCRATCHGPT_FIXTURES) + "/../../data/tinyshakespeare.txt");
  const std::string raw = slurp(std::string(SCRATCHGPT_FIXTURES) + "/tokenizer/tinyshakespeare.gpt2");
  std::vector<int32_t> want(raw.size() / 2);
  for (size_t i = 0; i < want.size(); ++i)
    want[i] = static_cast<uint8_t>(raw[2 * i]) | static_cast<uint8_t>(raw[2 * i + 1]) << 8;
  ASSERT_EQ(want.size(), 338025u);
  const std::vector<int32_t> got = gpt2().encode(text);
  ASSERT_EQ(got.size(), want.size());
  for (size_t i = 0; i < want.size(); ++i) ASSERT_EQ(got[i], want[i]) << "token " << i;
  EXPECT_EQ(gpt2().decode(got), text);
  // With threads and jobs of any size (cut at thousands of places): the same ids, special
  // tokens included.
  const std::string doubled = text + "<|endoftext|>" + text + "\n\n  \n";
  const auto one = gpt2().encode(doubled, true);
  for (int threads : {2, 3})
    for (size_t job : {size_t{1} << 20, size_t{4096}, size_t{700}})
      EXPECT_EQ(gpt2().encode_parallel(doubled, true, threads, job), one)
          << threads << " threads, jobs of " << job << " bytes";
}

TEST(Gpt2Bpe, FastMergeEqualsGpt2sReadableLoop) {
  const nlohmann::json j =
      nlohmann::json::parse(slurp(std::string(SCRATCHGPT_FIXTURES) + "/tokenizer/gpt2_cases.json"));
  const ReadableBpe readable(gpt2());
  int pieces = 0;
  for (size_t k = 0; k < 400; ++k) {
    const std::string text = j["cases"][k]["text"];
    pretokenize(text, [&](size_t b, size_t e) {
      const std::string_view piece(text.data() + b, e - b);
      std::vector<int32_t> fast;
      gpt2().encode_piece(piece, fast);
      ASSERT_EQ(fast, readable.encode_piece(piece)) << "piece [" << piece << "]";
      ++pieces;
    });
  }
  EXPECT_GT(pieces, 2000);
}

TEST(Gpt2Bpe, RandomUtf8RoundTrips) {
  std::mt19937 gen(7);
  std::uniform_int_distribution<int> len(0, 60), plane(0, 9);
  for (int k = 0; k < 2000; ++k) {
    std::string s;
    for (int i = len(gen); i > 0; --i) {
      uint32_t cp;
      switch (plane(gen)) {
        case 0: case 1: case 2: case 3: cp = std::uniform_int_distribution<uint32_t>(0, 0x7F)(gen); break;
        case 4: case 5: cp = std::uniform_int_distribution<uint32_t>(0x80, 0x7FF)(gen); break;
        case 6: case 7: cp = std::uniform_int_distribution<uint32_t>(0x800, 0xFFFF)(gen); break;
        default: cp = std::uniform_int_distribution<uint32_t>(0x10000, 0x10FFFF)(gen); break;
      }
      if (cp >= 0xD800 && cp <= 0xDFFF) cp = 0x20;  // no surrogates in UTF-8
      s += utf8_encode(cp);
    }
    ASSERT_EQ(gpt2().decode(gpt2().encode(s)), s);
  }
}

TEST(Gpt2Bpe, BadInputIsAnErrorNamingIt) {
  EXPECT_NE(error_of([] { gpt2().encode(std::string("ok\xff\xfe", 4)); }).find("byte offset 2"),
            std::string::npos);
  EXPECT_NE(error_of([] { gpt2().decode({1, 50257}); }).find("50257"), std::string::npos);
  EXPECT_NE(error_of([] { gpt2().decode({-1}); }).find("-1"), std::string::npos);
}

TEST(Gpt2Bpe, BadFilesAreErrorsNamingTheFile) {
  const fs::path dir = fs::temp_directory_path() / "sg_bpe_files";
  fs::remove_all(dir);
  fs::create_directories(dir);
  EXPECT_NE(error_of([&] { BpeTokenizer::load(dir.string()); }).find("encoder.json"),
            std::string::npos);
  std::ofstream(dir / "encoder.json") << "{not json";
  std::ofstream(dir / "vocab.bpe") << "#version: 0.2\n";
  EXPECT_NE(error_of([&] { BpeTokenizer::load(dir.string()); }).find("not valid JSON"),
            std::string::npos);
  // A tiny byte-level vocabulary: the 256 byte tokens, and one merge that names a token it lacks.
  nlohmann::json enc = nlohmann::json::object();
  for (int b = 0; b < 256; ++b) enc[byte_to_unicode(static_cast<uint8_t>(b))] = b;
  enc["ab"] = 256;
  std::ofstream(dir / "encoder.json") << enc.dump();
  std::ofstream(dir / "vocab.bpe") << "#version: 0.2\na b\nab zz\n";
  const std::string err = error_of([&] { BpeTokenizer::load(dir.string()); });
  EXPECT_NE(err.find("vocab.bpe line 3"), std::string::npos) << err;
  EXPECT_NE(err.find("zz"), std::string::npos) << err;
  std::ofstream(dir / "vocab.bpe") << "#version: 0.2\na b\n";
  const BpeTokenizer tiny = BpeTokenizer::load(dir.string());
  EXPECT_EQ(tiny.encode("abab"), (std::vector<int32_t>{256, 256}));
  EXPECT_EQ(tiny.decode({256, 99}), "abc");
  fs::remove_all(dir);
}
