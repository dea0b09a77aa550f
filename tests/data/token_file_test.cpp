// token_file_test.cpp: token files round trip bit for bit, and every kind of damage to the header
// or data is detected with an error that names the file.
#include "data/token_file.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>

#include "core/check.h"
#include "data/file_io.h"

using namespace scratchgpt;
namespace fs = std::filesystem;

namespace {

std::string tmp_dir() {
  fs::path d = fs::temp_directory_path() / ("sg_tokfile_test_" + std::to_string(::getpid()));
  fs::create_directories(d);
  return d.string();
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
  std::vector<uint16_t> toks = {0, 1, 64, 65534, 7, 300};
  write_token_file(path, toks, 65535);
  const std::string bytes = read_file(path);
  ASSERT_EQ(bytes.size(), 32u + 2 * toks.size());
  EXPECT_EQ(bytes.substr(0, 4), "SGTK");
  // Little-endian uint16 after the 32-byte header: 65534 = 0xFFFE at token 3.
  EXPECT_EQ(static_cast<uint8_t>(bytes[32 + 6]), 0xFE);
  EXPECT_EQ(static_cast<uint8_t>(bytes[32 + 7]), 0xFF);
  EXPECT_EQ(static_cast<uint8_t>(bytes[8]), 6);  // count
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
}
