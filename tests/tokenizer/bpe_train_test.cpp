// bpe_train_test.cpp: training a byte-level BPE: merges worked out by hand on a tiny corpus, the
// fast incremental trainer learning exactly the merges of the readable one (which recounts every
// pair before each merge) on real text, a trained tokenizer saved in GPT-2's two files loading
// back and round-tripping any text, and bad arguments as errors (a tokenizer without merges, which
// the loader would refuse, among them).
#include "tokenizer/bpe_train.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <functional>
#include <random>
#include <sstream>
#include <string>

#include "core/check.h"
#include "test_util.h"
#include "core/utf8.h"
#include "tokenizer/bpe.h"

using namespace scratchgpt;
using scratchgpt::test::error_of;

namespace {

std::string shakespeare(size_t n) {
  std::ifstream in(std::string(SCRATCHGPT_FIXTURES) + "/../../data/tinyshakespeare.txt");
  std::ostringstream ss;
  ss << in.rdbuf();
  return ss.str().substr(0, n);
}
}  // namespace

TEST(BpeTrain, TinyCorpusByHand) {
  // "aaab aaab" splits into the pieces "aaab" and " aaab". Pairs over both: aa 4, ab 2, " a" 1.
  // First merge: (a, a) -> "aa" (merging left to right: "aaab" -> [aa, a, b]). Then pairs: (aa, a)
  // 2, (a, b) 2, (" ", aa) 1: a tie of 2 goes to the smallest ids: (a=97, b=98) < (aa=256, a=97) ->
  // "ab". Then (aa, ab) 2.
  const TrainedBpe bpe = train_bpe("aaab aaab", 256 + 3 + 1);
  ASSERT_EQ(bpe.merges.size(), 3u);
  EXPECT_EQ(bpe.tokens[256], "aa");
  EXPECT_EQ(bpe.tokens[257], "ab");
  EXPECT_EQ(bpe.tokens[258], "aaab");
  EXPECT_EQ(bpe.merges[0], std::make_pair(97, 97));
  EXPECT_EQ(bpe.merges[1], std::make_pair(97, 98));
  EXPECT_EQ(bpe.merges[2], std::make_pair(256, 257));
  EXPECT_EQ(bpe.tokens[static_cast<size_t>(bpe.eot)], "<|endoftext|>");
  EXPECT_EQ(bpe.eot, 259);
}

TEST(BpeTrain, FastTrainerLearnsTheReadableTrainersMerges) {
  const std::string text = shakespeare(20000);
  const TrainedBpe fast = train_bpe(text, 600), slow = train_bpe_readable(text, 600);
  EXPECT_EQ(fast.merges, slow.merges);
  EXPECT_EQ(fast.tokens, slow.tokens);
  EXPECT_EQ(fast.tokens.size(), 600u);
}

TEST(BpeTrain, SavedTokenizerLoadsAndRoundTripsAnyText) {
  const TrainedBpe bpe = train_bpe(shakespeare(200000), 1000);
  const auto dir = test::scratch_root() / "bpe_train";
  save_bpe(bpe, dir.string());
  const BpeTokenizer tok = BpeTokenizer::load(dir.string());
  EXPECT_EQ(tok.vocab_size(), 1000);
  EXPECT_EQ(tok.eot_id(), bpe.eot);
  // Text like the training text compresses; any valid UTF-8 round-trips.
  const std::string sample = shakespeare(5000);
  EXPECT_LT(tok.encode(sample).size(), sample.size() / 2);
  EXPECT_EQ(tok.decode(tok.encode(sample)), sample);
  std::mt19937 gen(3);
  for (int k = 0; k < 500; ++k) {
    std::string s;
    for (int i = std::uniform_int_distribution<int>(0, 40)(gen); i > 0; --i) {
      uint32_t cp = std::uniform_int_distribution<uint32_t>(0, 0x2FFF)(gen);
      if (cp >= 0xD800 && cp <= 0xDFFF) cp = 'x';
      s += utf8_encode(cp);
    }
    ASSERT_EQ(tok.decode(tok.encode(s, true)), s);
  }
  std::filesystem::remove_all(dir);
}

TEST(BpeTrain, BadArgumentsAreErrors) {
  EXPECT_THROW(train_bpe("abc", 256), Error);
  EXPECT_THROW(train_bpe(std::string("ab\xff", 3), 300), Error);
}

// A tokenizer without merges is one that BpeTokenizer::load (so 'tokenize --tokenizer DIR')
// refuses: training refuses to write one, naming the problem and the fix. --vocab-size 257 leaves
// no room for a merge (258 is the least); an empty text, or one whose pieces are all one byte,
// has nothing to learn. Both trainers say the same.
TEST(BpeTrain, RefusesToLearnATokenizerWithoutMerges) {
  for (const auto train : {&train_bpe, &train_bpe_readable}) {
    const std::string small = error_of([&] { train("aaab aaab", 257); });
    EXPECT_NE(small.find("--vocab-size 257 leaves no room for a merge"), std::string::npos)
        << small;
    EXPECT_NE(small.find("give --vocab-size 258 or more"), std::string::npos) << small;
    EXPECT_EQ(small.find("no text"), std::string::npos) << small;
    const std::string empty = error_of([&] { train("", 1000); });
    EXPECT_NE(empty.find("the input has no text"), std::string::npos) << empty;
    EXPECT_EQ(empty.find("--vocab-size"), std::string::npos) << empty;
    const std::string both = error_of([&] { train("", 257); });  // both problems in one line
    EXPECT_NE(both.find("the input has no text"), std::string::npos) << both;
    EXPECT_NE(both.find("--vocab-size 258 or more"), std::string::npos) << both;
    const std::string one_byte_pieces = error_of([&] { train("a", 1000); });
    EXPECT_NE(one_byte_pieces.find("nothing to merge"), std::string::npos) << one_byte_pieces;
    for (const std::string& e : {small, empty, both, one_byte_pieces})
      EXPECT_EQ(e.find('\n'), std::string::npos) << e;
  }
  // The least that works: one merge, and the files load and round-trip.
  const TrainedBpe bpe = train_bpe("aaab aaab", 258);
  ASSERT_EQ(bpe.merges.size(), 1u);
  const auto dir = test::scratch_root() / "bpe_train_258";
  save_bpe(bpe, dir.string());
  const BpeTokenizer tok = BpeTokenizer::load(dir.string());
  EXPECT_EQ(tok.vocab_size(), 258);
  EXPECT_EQ(tok.encode("aab"), (std::vector<int32_t>{256, 98}));
  EXPECT_EQ(tok.decode(tok.encode("aaab aaab")), "aaab aaab");
  std::filesystem::remove_all(dir);
}
