// bpe_test.cpp: scratchgpt's GPT-2 tokenizer against OpenAI's tiktoken (fixtures written by
// tools/gen_bpe_fixtures.mjs from the npm package): every id of 3041 texts (hand-picked Unicode,
// whitespace, contractions, code, special-token look-alikes, long words, random mixes), ordinary
// and with <|endoftext|> allowed, and of all of Tiny Shakespeare; decode gives the bytes back;
// both fast merge loops (the scan, the heap) equal GPT-2's readable loop on the cases' pieces and
// on random ones, and each other on merge files in any order; a long piece costs work that grows
// as n log n (counted), and 10 MB in one piece gives the readable loop's ids; random UTF-8
// round-trips; threads change nothing; bad input and bad files (a merge that spells
// <|endoftext|> among them) are one-line errors naming the problem.
#include "tokenizer/bpe.h"

#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include "core/check.h"
#include "test_util.h"
#include "core/utf8.h"
#include "tokenizer/pretokenize.h"

using namespace scratchgpt;
using scratchgpt::test::error_of;
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
  const std::string text =
      slurp(std::string(SCRATCHGPT_FIXTURES) + "/../../data/tinyshakespeare.txt");
  const std::string raw =
      slurp(std::string(SCRATCHGPT_FIXTURES) + "/tokenizer/tinyshakespeare.gpt2");
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

namespace {

// The three merge loops on one piece: encode_piece (which picks one of the next two), the scan and
// the heap; each must give the readable loop's ids.
void expect_all_merges_agree(const ReadableBpe& readable, std::string_view piece) {
  const std::vector<int32_t> want = readable.encode_piece(piece);
  std::vector<int32_t> picked, scan, heap;
  gpt2().encode_piece(piece, picked);
  gpt2().merge_scan(piece, scan);
  gpt2().merge_heap(piece, heap);
  ASSERT_EQ(picked, want) << "encode_piece, piece [" << piece << "]";
  ASSERT_EQ(scan, want) << "merge_scan, piece [" << piece << "]";
  ASSERT_EQ(heap, want) << "merge_heap, piece [" << piece << "]";
}

}  // namespace

TEST(Gpt2Bpe, FastMergeEqualsGpt2sReadableLoop) {
  const nlohmann::json j =
      nlohmann::json::parse(slurp(std::string(SCRATCHGPT_FIXTURES) + "/tokenizer/gpt2_cases.json"));
  std::vector<std::string> pieces;
  for (const auto& c : j["cases"]) {
    const std::string text = c["text"];
    pretokenize(text, [&](size_t b, size_t e) { pieces.push_back(text.substr(b, e - b)); });
  }
  EXPECT_GT(pieces.size(), 20000u);
  const ReadableBpe readable(gpt2());
  for (const std::string& piece : pieces)
    ASSERT_NO_FATAL_FAILURE(expect_all_merges_agree(readable, piece));
}

// Random pieces of every kind a user's text holds (not pre-tokenized: any bytes are a piece to the
// merge loops), short and long enough for both of encode_piece's loops.
TEST(Gpt2Bpe, FastMergesEqualTheReadableLoopOnRandomPieces) {
  const ReadableBpe readable(gpt2());
  std::mt19937 gen(11);
  auto uniform = [&](int lo, int hi) { return std::uniform_int_distribution<int>(lo, hi)(gen); };
  const std::string kAlphabets[] = {
      "a",
      "0123456789",
      "abcdefghijklmnopqrstuvwxyz",
      "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/",
      "{}[]\":,0123456789abcdef",
      " \n\t"};
  int pieces = 0;
  for (int k = 0; k < 600; ++k) {
    const int n = k % 3 == 0 ? uniform(1, 16) : uniform(1, k % 3 == 1 ? 300 : 700);
    std::string piece;
    switch (k % 5) {
      case 0:  // random bytes (not UTF-8: the merge loops take any bytes)
        for (int i = 0; i < n; ++i) piece += static_cast<char>(uniform(0, 255));
        break;
      case 1: {  // one character repeated: every pair the same, the scan's worst case
        const std::string c = k % 2 ? std::string(1, static_cast<char>(uniform(32, 126)))
                                    : utf8_encode(static_cast<uint32_t>(uniform(0xA0, 0x3000)));
        for (int i = 0; i < n; ++i) piece += c;
        break;
      }
      case 2: {  // digits, base64, minified JSON, letters, whitespace
        const std::string& a = kAlphabets[static_cast<size_t>(uniform(0, 5))];
        for (int i = 0; i < n; ++i)
          piece += a[static_cast<size_t>(uniform(0, static_cast<int>(a.size()) - 1))];
        break;
      }
      case 3:  // Unicode: code points of every length
        for (int i = 0; i < n / 2; ++i) {
          uint32_t cp = static_cast<uint32_t>(uniform(0x20, i % 4 ? 0x2FFF : 0x10FFFF));
          if (cp >= 0xD800 && cp <= 0xDFFF) cp = 'x';
          piece += utf8_encode(cp);
        }
        break;
      default:  // a short word repeated: the same pairs at many places
        for (const std::string w =
                 std::string("abcd").substr(0, static_cast<size_t>(uniform(1, 4)));
             static_cast<int>(piece.size()) < n;)
          piece += w;
    }
    if (piece.empty()) continue;
    ASSERT_NO_FATAL_FAILURE(expect_all_merges_agree(readable, piece));
    ++pieces;
  }
  EXPECT_GT(pieces, 500);
}

// One long pre-token piece (a user's line of digits, a run of one letter, a minified blob) must
// not take time quadratic in its length (before, 1 MB of 'a' took minutes). Counted, not timed:
// encode_piece's work on pieces of n and 8n bytes grows as n log n (8 * log(8n) / log(n), 9.7
// times at n = 16 KB), far below the 64 times of a quadratic loop. The times are in
// bench/tokenizer_bench.cpp.
TEST(Gpt2Bpe, LongPieceWorkGrowsAsNLogN) {
  std::mt19937 gen(5);
  auto piece_of = [&](const std::string& alphabet, size_t n) {
    std::string s(n, alphabet[0]);
    std::uniform_int_distribution<size_t> pick(0, alphabet.size() - 1);
    for (char& c : s) c = alphabet[pick(gen)];
    return s;
  };
  const size_t n = size_t{1} << 14;
  for (const std::string alphabet : {"a", "0123456789", "abcdefghijklmnopqrstuvwxyz", "{}[]\":,"}) {
    uint64_t work_n = 0, work_8n = 0;
    std::vector<int32_t> ids;
    gpt2().encode_piece(piece_of(alphabet, n), ids, &work_n);
    gpt2().encode_piece(piece_of(alphabet, 8 * n), ids, &work_8n);
    const double growth = static_cast<double>(work_8n) / static_cast<double>(work_n);
    EXPECT_GT(work_n, n) << "alphabet [" << alphabet << "]: the work is counted";
    EXPECT_LT(growth, 8 * 1.5) << "alphabet [" << alphabet << "]: work " << work_n << " at " << n
                               << " bytes, " << work_8n << " at " << 8 * n << " bytes";
    std::printf("  [%s]: work %llu at %zu bytes, %llu at %zu bytes: %.2f times\n", alphabet.c_str(),
                static_cast<unsigned long long>(work_n), n,
                static_cast<unsigned long long>(work_8n), 8 * n, growth);
  }
}

namespace {

// The ids of `unit` repeated `reps` times, from the readable loop on fewer repeats: when the ids
// of r0 + q repeats are those of r0 repeats with a run M inserted at one place (checked, and
// checked again at r0 + 2q), each further q repeats insert M once more there.
std::vector<int32_t> readable_extrapolated(const ReadableBpe& readable, const std::string& unit,
                                           size_t reps, size_t q) {
  const size_t r0 = 8 * q + reps % q;
  auto repeated = [&](size_t r) {
    std::string s;
    for (size_t i = 0; i < r; ++i) s += unit;
    return s;
  };
  const std::vector<int32_t> u = readable.encode_piece(repeated(r0)),
                             v = readable.encode_piece(repeated(r0 + q));
  if (v.size() <= u.size()) {
    ADD_FAILURE() << "unit [" << unit << "]: more repeats gave no more ids";
    return {};
  }
  size_t a = 0;
  while (a < u.size() && u[a] == v[a]) ++a;
  const std::vector<int32_t> m(v.begin() + static_cast<std::ptrdiff_t>(a),
                               v.begin() + static_cast<std::ptrdiff_t>(a + v.size() - u.size()));
  auto insert_m = [&](size_t k) {
    std::vector<int32_t> out(u.begin(), u.begin() + static_cast<std::ptrdiff_t>(a));
    for (size_t i = 0; i < k; ++i) out.insert(out.end(), m.begin(), m.end());
    out.insert(out.end(), u.begin() + static_cast<std::ptrdiff_t>(a), u.end());
    return out;
  };
  EXPECT_EQ(insert_m(1), v) << "unit [" << unit << "]: not one run inserted";
  EXPECT_EQ(insert_m(2), readable.encode_piece(repeated(r0 + 2 * q)))
      << "unit [" << unit << "]: the run does not repeat";
  return insert_m((reps - r0) / q);
}

}  // namespace

// 10 MB in one piece (one letter; a line of digits) encodes, through encode and on 2 threads,
// to the ids the readable loop gives on a few hundred bytes, extrapolated; and decodes back.
TEST(Gpt2Bpe, TenMegabytesInOnePieceEqualTheReadableLoop) {
  const ReadableBpe readable(gpt2());
  const size_t bytes = test::kSanitized ? 1u << 20 : 10u << 20;  // 1 MB there: the same paths
  for (const std::string unit : {"a", "1234567890"}) {
    std::string text;
    text.reserve(bytes);
    while (text.size() + unit.size() <= bytes) text += unit;
    size_t pieces = 0;
    pretokenize(text, [&](size_t, size_t) { ++pieces; });
    ASSERT_EQ(pieces, 1u) << "unit [" << unit << "]";
    const std::vector<int32_t> ids = gpt2().encode(text);
    EXPECT_EQ(ids, readable_extrapolated(readable, unit, text.size() / unit.size(), 64))
        << "unit [" << unit << "]";
    EXPECT_EQ(gpt2().encode_parallel(text, false, 2), ids) << "unit [" << unit << "]";
    EXPECT_EQ(gpt2().decode(ids), text) << "unit [" << unit << "]";
  }
}

// The scan and the heap merge the leftmost pair of lowest rank whatever the file: here random
// merges over a three-letter alphabet in a random order, so a merge often makes a pair of lower
// rank than its own (GPT-2's never do; the heap of ranks then goes back down).
TEST(Gpt2Bpe, ScanAndHeapAgreeOnMergesInAnyOrder) {
  std::mt19937 gen(13);
  auto uniform = [&](size_t lo, size_t hi) {
    return std::uniform_int_distribution<size_t>(lo, hi)(gen);
  };
  int pieces = 0;
  for (int vocab = 0; vocab < 20; ++vocab) {
    nlohmann::json enc = nlohmann::json::object();
    for (int b = 0; b < 256; ++b) enc[byte_to_unicode(static_cast<uint8_t>(b))] = b;
    std::vector<std::string> tokens = {"a", "b", "c"};
    std::vector<std::string> merges;
    for (int m = 0; m < 60; ++m) {
      const std::string& l = tokens[uniform(0, tokens.size() - 1)];
      const std::string& r = tokens[uniform(0, tokens.size() - 1)];
      if (l.size() + r.size() > 8) continue;
      merges.push_back(l + " " + r);
      if (!enc.contains(l + r)) {
        enc[l + r] = enc.size();
        tokens.push_back(l + r);
      }
    }
    enc["<|endoftext|>"] = enc.size();
    std::shuffle(merges.begin(), merges.end(), gen);
    std::string vocab_bpe = "#version: 0.2\n";
    for (const std::string& m : merges) vocab_bpe += m + "\n";
    const BpeTokenizer tok = BpeTokenizer::parse(enc.dump(), vocab_bpe, "random");
    for (int k = 0; k < 20; ++k) {
      std::string piece(uniform(1, 2000), 'a');
      for (char& c : piece) c = static_cast<char>('a' + uniform(0, k % 2 ? 2 : 1));
      std::vector<int32_t> scan, heap;
      tok.merge_scan(piece, scan);
      tok.merge_heap(piece, heap);
      ASSERT_EQ(scan, heap) << "piece [" << piece << "], merges:\n" << vocab_bpe;
      EXPECT_EQ(tok.decode(heap), piece);
      ++pieces;
    }
  }
  EXPECT_EQ(pieces, 400);
}

TEST(Gpt2Bpe, RandomUtf8RoundTrips) {
  std::mt19937 gen(7);
  std::uniform_int_distribution<int> len(0, 60), plane(0, 9);
  for (int k = 0; k < 2000; ++k) {
    std::string s;
    for (int i = len(gen); i > 0; --i) {
      uint32_t cp;
      switch (plane(gen)) {
        case 0:
        case 1:
        case 2:
        case 3:
          cp = std::uniform_int_distribution<uint32_t>(0, 0x7F)(gen);
          break;
        case 4:
        case 5:
          cp = std::uniform_int_distribution<uint32_t>(0x80, 0x7FF)(gen);
          break;
        case 6:
        case 7:
          cp = std::uniform_int_distribution<uint32_t>(0x800, 0xFFFF)(gen);
          break;
        default:
          cp = std::uniform_int_distribution<uint32_t>(0x10000, 0x10FFFF)(gen);
          break;
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
  const fs::path dir = test::scratch_dir("bpe_files");
  EXPECT_NE(error_of([&] { BpeTokenizer::load(dir.string()); }).find("encoder.json"),
            std::string::npos);
  std::ofstream(dir / "encoder.json") << "{not json";
  std::ofstream(dir / "vocab.bpe") << "#version: 0.2\n";
  EXPECT_NE(error_of([&] { BpeTokenizer::load(dir.string()); }).find("not valid JSON"),
            std::string::npos);
  // encoder.json is read as a stream: each shape that is not one flat object of whole numbers
  // is named.
  const std::pair<const char*, const char*> shapes[] = {
      {"[1, 2]", "must be a JSON object"},       {"{}", "must be a JSON object"},
      {"{\"a\": [1]}", "non-integer id"},        {"{\"a\": 1.5}", "non-integer id 1.5"},
      {"{\"a\": {\"b\": 1}}", "has an object"}, {"{\"a\": 0, \"a\": 1}", "listed twice"},
      {"{\"a\": 0} x", "not valid JSON"},       {"{\"a\": -1}", "has id -1"}};
  for (const auto& [json, want] : shapes) {
    std::ofstream(dir / "encoder.json") << json;
    const std::string e = error_of([&] { BpeTokenizer::load(dir.string()); });
    EXPECT_NE(e.find(want), std::string::npos) << json << " -> " << e;
    EXPECT_NE(e.find("encoder.json"), std::string::npos) << e;
  }
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
  // A FIFO as either file is refused at once: opening it would wait for a writer forever (the
  // alarm ends the test if it does).
  fs::remove(dir / "vocab.bpe");
  ASSERT_EQ(::mkfifo((dir / "vocab.bpe").c_str(), 0600), 0);
  ::alarm(20);
  const std::string fifo = error_of([&] { BpeTokenizer::load(dir.string()); });
  ::alarm(0);
  EXPECT_NE(fifo.find("vocab.bpe"), std::string::npos) << fifo;
  EXPECT_NE(fifo.find("not a regular file"), std::string::npos) << fifo;
  fs::remove_all(dir);
}

// A vocab.bpe whose merges build the text "<|endoftext|>" would have BPE emit the special token
// for ordinary text (and crashed the loader): refused, naming the merge and its line.
TEST(Gpt2Bpe, AMergeThatSpellsEndOfTextIsRefused) {
  const fs::path dir = test::scratch_dir("bpe_eot_merge");
  nlohmann::json enc = nlohmann::json::object();
  for (int b = 0; b < 256; ++b) enc[byte_to_unicode(static_cast<uint8_t>(b))] = b;
  enc["<|"] = 256;
  enc["endoftext|>"] = 257;
  enc["<|endoftext|>"] = 258;
  std::ofstream(dir / "encoder.json") << enc.dump();
  std::ofstream(dir / "vocab.bpe") << "#version: 0.2\n< |\n<| endoftext|>\n";
  const std::string err = error_of([&] { BpeTokenizer::load(dir.string()); });
  EXPECT_NE(err.find("vocab.bpe line 3"), std::string::npos) << err;
  EXPECT_NE(err.find("'<|' and 'endoftext|>'"), std::string::npos) << err;
  EXPECT_NE(err.find("special token"), std::string::npos) << err;
  EXPECT_EQ(err.find('\n'), std::string::npos) << err;
  // Without that line the same files load, and the text "<|endoftext|>" stays text.
  std::ofstream(dir / "vocab.bpe") << "#version: 0.2\n< |\n";
  const BpeTokenizer tok = BpeTokenizer::load(dir.string());
  EXPECT_EQ(tok.encode("<|endoftext|>")[0], 256);
  EXPECT_EQ(tok.encode("<|endoftext|>", true), (std::vector<int32_t>{258}));
  fs::remove_all(dir);
}
