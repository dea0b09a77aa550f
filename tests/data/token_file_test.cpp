// token_file_test.cpp: token files round trip bit for bit, and every kind of damage to the header
// or data is detected with an error that names the file.
#include "data/token_file.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <cstring>
#include <filesystem>
#include <sstream>

#include "core/check.h"
#include "data/file_io.h"
#include "test_util.h"

using namespace scratchgpt;
namespace fs = std::filesystem;

namespace {

std::string tmp_dir() {
  return test::scratch_root().string();
}

std::string error_reading(const std::string& path) {
  try {
    read_token_file(path);
  } catch (const Error& e) {
    return e.what();
  }
  return "";
}

}  // namespace

TEST(TokenFile, RoundTripAndLayout) {
  const std::string path = tmp_dir() + "/t.bin";
  std::vector<uint32_t> toks = {0, 1, 64, 65534, 7, 300};
  write_token_file(path, toks, 65535);
  const std::string bytes = read_file(path);
  ASSERT_EQ(bytes.size(), 32u + 2 * toks.size());
  EXPECT_EQ(bytes.substr(0, 4), "SGTK");
  // Little-endian uint16 after the 32-byte header: 65534 = 0xFFFE at token 3.
  EXPECT_EQ(static_cast<uint8_t>(bytes[32 + 6]), 0xFE);
  EXPECT_EQ(static_cast<uint8_t>(bytes[32 + 7]), 0xFF);
  EXPECT_EQ(static_cast<uint8_t>(bytes[8]), 6);  // count
  EXPECT_EQ(static_cast<uint8_t>(bytes[4]), 2);  // version
  EXPECT_EQ(static_cast<uint8_t>(bytes[20]), 2);  // token_bytes
  const TokenFile tf = read_token_file(path);
  EXPECT_EQ(tf.tokens, toks);
  EXPECT_EQ(tf.vocab_size, 65535);
  // Empty files are legal.
  write_token_file(path, {}, 3);
  EXPECT_TRUE(read_token_file(path).tokens.empty());
}

TEST(TokenFile, CorruptionIsDetected) {
  const std::string dir = tmp_dir();
  const std::string good = dir + "/good.bin";
  write_token_file(good, {1, 2, 3, 4, 5}, 10);
  const std::string original = read_file(good);
  auto damaged = [&](const std::string& name, const std::function<void(std::string&)>& f) {
    std::string b = original;
    f(b);
    const std::string p = dir + "/" + name;
    write_file_atomic(p, b);
    return error_reading(p);
  };
  const std::string e_magic = damaged("magic.bin", [](std::string& b) { b[0] = 'X'; });
  EXPECT_NE(e_magic.find("magic"), std::string::npos) << e_magic;
  EXPECT_NE(e_magic.find("magic.bin"), std::string::npos) << e_magic;
  EXPECT_NE(damaged("version.bin", [](std::string& b) { b[4] = 9; }).find("version"),
            std::string::npos);
  EXPECT_NE(damaged("count.bin", [](std::string& b) { b[8] = 6; }).find("says it holds"),
            std::string::npos);
  EXPECT_NE(damaged("trunc.bin", [](std::string& b) { b.resize(b.size() - 1); }).find("size"),
            std::string::npos);
  EXPECT_NE(damaged("short.bin", [](std::string& b) { b.resize(10); }).find("truncated"),
            std::string::npos);
  EXPECT_NE(damaged("data.bin", [](std::string& b) { b[33] ^= 1; }).find("checksum"),
            std::string::npos);
  EXPECT_NE(damaged("vocab.bin", [](std::string& b) { b[16] = 0; }).find("vocab_size"),
            std::string::npos);
  EXPECT_NE(error_reading(dir + "/missing.bin").find("not found"), std::string::npos);
  EXPECT_EQ(error_reading(good), "");
  EXPECT_THROW(write_token_file(dir + "/bad.bin", {1, 10}, 10), Error);  // id >= vocab
  EXPECT_NE(damaged("width.bin", [](std::string& b) { b[20] = 3; }).find("token_bytes"),
            std::string::npos);
}

// Version 1 files (uint16 ids, 0 where version 2 says the width) are still read: the bytes below
// are what the version-1 writer produced for {1, 2, 3} over a vocabulary of 10.
TEST(TokenFile, ReadsVersionOne) {
  const std::string dir = tmp_dir();
  std::string b(32 + 6, '\0');
  b.replace(0, 4, "SGTK");
  b[4] = 1, b[8] = 3, b[16] = 10;
  b[32] = 1, b[34] = 2, b[36] = 3;
  uint64_t h = 0xcbf29ce484222325ULL;  // FNV-1a 64 of the six token bytes, written out
  for (size_t i = 32; i < b.size(); ++i) h = (h ^ static_cast<uint8_t>(b[i])) * 0x100000001b3ULL;
  for (int i = 0; i < 8; ++i) b[24 + static_cast<size_t>(i)] = static_cast<char>(h >> (8 * i));
  write_file_atomic(dir + "/v1.bin", b);
  const TokenFile tf = read_token_file(dir + "/v1.bin");
  EXPECT_EQ(tf.tokens, (std::vector<uint32_t>{1, 2, 3}));
  EXPECT_EQ(tf.vocab_size, 10);
}

// Vocabularies past 65536 are written as uint32 ids.
TEST(TokenFile, WideVocabulariesUseFourBytes) {
  const std::string path = tmp_dir() + "/wide.bin";
  const std::vector<uint32_t> toks = {0, 65536, 100255, 7};
  write_token_file(path, toks, 100277);
  const std::string bytes = read_file(path);
  ASSERT_EQ(bytes.size(), 32u + 4 * toks.size());
  EXPECT_EQ(static_cast<uint8_t>(bytes[20]), 4);
  EXPECT_EQ(static_cast<uint8_t>(bytes[32 + 4 + 2]), 1);  // 65536 = 0x00010000, little-endian
  EXPECT_EQ(read_token_file(path).tokens, toks);
  // nanoGPT's and llm.c's formats hold uint16 ids only.
  EXPECT_NE(test::error_of([&] {
              write_token_file(path + ".n", toks, 100277, TokenFormat::kNanoGpt);
            }).find("uint16"),
            std::string::npos);
}

// nanoGPT's files are the ids as numpy's uint16 tofile() writes them, nothing else; llm.c's shards
// are 256 int32 of header (magic 20240520, version 1, count) then uint16 ids. Both are written
// byte for byte as those tools write them, and read back; a raw file needs its vocabulary size.
TEST(TokenFile, NanoGptAndLlmcFormats) {
  const std::string dir = tmp_dir();
  const std::vector<uint32_t> toks = {50256, 0, 15496, 11, 995};
  write_token_file(dir + "/n.bin", toks, 50257, TokenFormat::kNanoGpt);
  std::string raw = read_file(dir + "/n.bin");
  ASSERT_EQ(raw.size(), 2 * toks.size());
  EXPECT_EQ(static_cast<uint8_t>(raw[0]), 0x50);  // 50256 = 0xC450
  EXPECT_EQ(static_cast<uint8_t>(raw[1]), 0xC4);
  EXPECT_EQ(static_cast<uint8_t>(raw[4]), 0x88);  // 15496 = 0x3C88
  EXPECT_EQ(static_cast<uint8_t>(raw[5]), 0x3C);
  const TokenFile n = read_token_file(dir + "/n.bin", 50257);
  EXPECT_EQ(n.tokens, toks);
  EXPECT_EQ(n.format, TokenFormat::kNanoGpt);
  EXPECT_NE(error_reading(dir + "/n.bin").find("--vocab-size"), std::string::npos);
  EXPECT_NE(test::error_of([&] { read_token_file(dir + "/n.bin", 1000); }).find("50256"),
            std::string::npos);

  write_token_file(dir + "/l.bin", toks, 50257, TokenFormat::kLlmc);
  const std::string shard = read_file(dir + "/l.bin");
  ASSERT_EQ(shard.size(), 1024 + 2 * toks.size());
  int32_t header[3];
  std::memcpy(header, shard.data(), sizeof header);
  EXPECT_EQ(header[0], 20240520);
  EXPECT_EQ(header[1], 1);
  EXPECT_EQ(header[2], 5);
  EXPECT_EQ(shard.substr(1024), raw);  // the same uint16 ids after the header
  const TokenFile l = read_token_file(dir + "/l.bin");
  EXPECT_EQ(l.tokens, toks);
  EXPECT_EQ(l.format, TokenFormat::kLlmc);
  EXPECT_EQ(l.vocab_size, 50257);
  std::string cut = shard;
  cut.resize(cut.size() - 2);
  write_file_atomic(dir + "/cut.bin", cut);
  EXPECT_NE(error_reading(dir + "/cut.bin").find("says it holds 5"), std::string::npos);
  EXPECT_NE(test::error_of([&] {
              write_token_file(dir + "/x.bin", {1, 2}, 65, TokenFormat::kLlmc);
            }).find("GPT-2"),
            std::string::npos);
}

// Files written by numpy exactly as nanoGPT's prepare.py and llm.c's write_datafile write them
// (tools/make_token_file_fixtures.py): read to the same ids, and written back byte for byte.
TEST(TokenFile, ReadsAndWritesTheirFiles) {
  std::vector<uint32_t> ids;
  {
    std::istringstream in(read_file(test::fixture_path("data/ids.txt")));
    for (uint32_t id; in >> id;) ids.push_back(id);
  }
  ASSERT_EQ(ids.size(), 14u);
  const std::string dir = tmp_dir();
  const struct {
    const char* name;
    TokenFormat format;
  } cases[] = {{"nanogpt.bin", TokenFormat::kNanoGpt}, {"llmc.bin", TokenFormat::kLlmc}};
  for (const auto& c : cases) {
    const std::string theirs = test::fixture_path(std::string("data/") + c.name);
    const TokenFile tf = read_token_file(theirs, 50257);
    EXPECT_EQ(tf.format, c.format) << c.name;
    EXPECT_EQ(tf.tokens, ids) << c.name;
    write_token_file(dir + "/" + c.name, ids, 50257, c.format);
    EXPECT_EQ(read_file(dir + "/" + c.name), read_file(theirs)) << c.name;
  }
}

// nanoGPT's raw files have no header, and ids 18259 19284 are the bytes "SGTK" (55432 308 those of
// llm.c's magic 20240520): four bytes do not tell the formats apart, the rest of the header does.
// With a vocabulary given for raw files (--vocab-size), such a file whose header does not hold (its
// count is not the file's size, its checksum not its ids') is read as nanoGPT's; without one, the
// error says which format it was read as and how to have it read as nanoGPT's. Our own files are
// still ours with a vocabulary given, and their damage is named as damage.
TEST(TokenFile, RawIdsThatSpellAMagicAreReadAsNanoGpt) {
  const std::string dir = tmp_dir();
  // "SGTK", version 2, count 5, vocab 65, token_bytes 2: a header that looks right up to its count
  // (the file holds 3 ids after it, not 5) and checksum.
  const std::vector<uint32_t> sgtk = {18259, 19284, 2, 0, 5, 0, 0, 0, 65, 0,
                                      2,     0,     7, 7, 7, 7, 1, 2, 300};
  write_token_file(dir + "/sgtk.bin", sgtk, 50257, TokenFormat::kNanoGpt);
  ASSERT_EQ(read_file(dir + "/sgtk.bin").substr(0, 4), "SGTK");
  const TokenFile n = read_token_file(dir + "/sgtk.bin", 50257);
  EXPECT_EQ(n.format, TokenFormat::kNanoGpt);
  EXPECT_EQ(n.tokens, sgtk);
  const std::string e = error_reading(dir + "/sgtk.bin");
  EXPECT_NE(e.find("read as a scratchgpt token file"), std::string::npos) << e;
  EXPECT_NE(e.find("--vocab-size"), std::string::npos) << e;
  // llm.c's magic, version 1, a count that is not the size.
  std::vector<uint32_t> llmc = {55432, 308, 1, 0, 9, 0};
  for (int i = 0; i < 600; ++i) llmc.push_back(static_cast<uint32_t>(i));
  write_token_file(dir + "/llmc.bin", llmc, 65536, TokenFormat::kNanoGpt);
  const TokenFile l = read_token_file(dir + "/llmc.bin", 65536);
  EXPECT_EQ(l.format, TokenFormat::kNanoGpt);
  EXPECT_EQ(l.tokens, llmc);
  EXPECT_NE(error_reading(dir + "/llmc.bin").find("read as an llm.c shard"), std::string::npos);

  // Ours, with a vocabulary given: still ours; a flipped id byte (the size holds) is a checksum
  // error, and a file cut short (neither holds) read as raw ids says so, and that it may be ours.
  write_token_file(dir + "/ours.bin", {1, 2, 3, 4, 5}, 10);
  const TokenFile o = read_token_file(dir + "/ours.bin", 10);
  EXPECT_EQ(o.format, TokenFormat::kScratchgpt);
  EXPECT_EQ(o.tokens, (std::vector<uint32_t>{1, 2, 3, 4, 5}));
  std::string bytes = read_file(dir + "/ours.bin");
  bytes[33] ^= 1;
  write_file_atomic(dir + "/flip.bin", bytes);
  EXPECT_NE(test::error_of([&] { read_token_file(dir + "/flip.bin", 10); }).find("checksum"),
            std::string::npos);
  bytes = read_file(dir + "/ours.bin");
  bytes.resize(bytes.size() - 2);
  write_file_atomic(dir + "/cut.bin", bytes);
  const std::string cut = test::error_of([&] { read_token_file(dir + "/cut.bin", 10); });
  EXPECT_NE(cut.find("read as nanoGPT's raw uint16 ids"), std::string::npos) << cut;
  EXPECT_NE(cut.find("scratchgpt token file, it is damaged"), std::string::npos) << cut;
  EXPECT_NE(error_reading(dir + "/cut.bin").find("says it holds 5"), std::string::npos);
}
