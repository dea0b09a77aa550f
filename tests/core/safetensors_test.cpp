// safetensors_test.cpp: round trip, atomic write, and every kind of damage is detected with an
// error (never read as garbage).
#include "core/safetensors.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include "core/check.h"
#include "scratch_dir.h"

using namespace scratchgpt;
namespace fs = std::filesystem;

namespace {
std::string tmp_path(const std::string& name) {
  return (test::scratch_root() / name).string();
}
SafeTensors sample() {
  SafeTensors st;
  float f[6] = {1.5f, -2.0f, 3.25f, 0.0f, -0.0f, 1e-30f};
  int32_t i[3] = {7, -1, 65535};
  int64_t l[2] = {1LL << 40, -5};
  st.add_f32("w", {2, 3}, f);
  st.add_i32("ids", {3}, i);
  st.add_i64("step", {2}, l);
  st.metadata["config"] = "{\"n_layer\": 4}";
  return st;
}
std::vector<char> read_all(const std::string& p) {
  std::ifstream f(p, std::ios::binary);
  return {std::istreambuf_iterator<char>(f), {}};
}
void write_all(const std::string& p, const std::vector<char>& b) {
  std::ofstream f(p, std::ios::binary);
  f.write(b.data(), static_cast<std::streamsize>(b.size()));
}
}  // namespace

TEST(SafeTensors, RoundTrip) {
  std::string p = tmp_path("rt.safetensors");
  save_safetensors(p, sample());
  SafeTensors st = load_safetensors(p);
  EXPECT_EQ(st.shape("w"), (std::vector<int64_t>{2, 3}));
  auto w = st.f32("w");
  EXPECT_EQ(w[2], 3.25f);
  EXPECT_EQ(w[5], 1e-30f);
  EXPECT_EQ(st.i32("ids")[2], 65535);
  EXPECT_EQ(st.i64("step")[0], 1LL << 40);
  EXPECT_EQ(st.meta("config"), "{\"n_layer\": 4}");
  // Nothing but the file itself is left beside it (the temporary was renamed).
  for (const auto& e : fs::directory_iterator(fs::path(p).parent_path()))
    EXPECT_EQ(e.path().filename().string().find(".rt.safetensors.tmp"), std::string::npos)
        << e.path();
  // header length is 8-byte aligned as the format recommends
  auto bytes = read_all(p);
  uint64_t hl = 0;
  for (int i = 7; i >= 0; --i) hl = (hl << 8) | static_cast<uint8_t>(bytes[i]);
  EXPECT_EQ((hl + 8) % 8, 0u);
}

TEST(SafeTensors, DetectsTruncationAndCorruption) {
  std::string p = tmp_path("bad.safetensors");
  save_safetensors(p, sample());
  auto good = read_all(p);

  for (size_t cut : {size_t(0), size_t(5), size_t(20), good.size() - 1}) {
    write_all(p, std::vector<char>(good.begin(), good.begin() + static_cast<long>(cut)));
    EXPECT_THROW(load_safetensors(p), Error) << "truncated at " << cut;
  }
  auto flipped = good;
  flipped[flipped.size() - 3] ^= 0x10;  // a bit in the data
  write_all(p, flipped);
  try {
    load_safetensors(p);
    FAIL() << "corrupted data was accepted";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("checksum"), std::string::npos) << e.what();
  }
  auto bad_header = good;
  bad_header[9] = '#';
  write_all(p, bad_header);
  EXPECT_THROW(load_safetensors(p), Error);
  EXPECT_THROW(load_safetensors(tmp_path("does_not_exist.safetensors")), Error);
}

// A header whose shape or data_offsets hold a non-integer number (a float such as 1e59 cannot be
// converted to an integer type: the fuzzer found that) is an error that names the problem.
TEST(SafeTensors, NumbersThatAreNotWholeAreAnError) {
  for (const char* t :
       {R"("shape":[1e59],"data_offsets":[0,4])", R"("shape":[1.0],"data_offsets":[0,4])",
        R"("shape":[1],"data_offsets":[0,4.5])", R"("shape":[1],"data_offsets":[0,1e30])"}) {
    std::string header = std::string(R"({"w":{"dtype":"F32",)") + t + "}}";
    std::vector<uint8_t> bytes(8);
    for (int i = 0; i < 8; ++i) bytes[i] = static_cast<uint8_t>(header.size() >> (8 * i));
    bytes.insert(bytes.end(), header.begin(), header.end());
    bytes.insert(bytes.end(), 4, 0);
    try {
      parse_safetensors(bytes.data(), bytes.size(), "x.safetensors");
      FAIL() << "accepted " << t;
    } catch (const Error& e) {
      EXPECT_NE(std::string(e.what()).find("not whole numbers"), std::string::npos) << e.what();
    }
  }
}

TEST(SafeTensors, FailedWriteLeavesTheOldFileIntact) {
  std::string p = tmp_path("keep.safetensors");
  save_safetensors(p, sample());
  auto before = read_all(p);
  EXPECT_THROW(save_safetensors(tmp_path("no_such_dir/x.safetensors"), sample()), Error);
  EXPECT_EQ(read_all(p), before);
}

TEST(SafeTensors, CheckedAccessorsNameTheProblem) {
  SafeTensors st = sample();
  EXPECT_THROW(st.get("nope"), Error);
  EXPECT_THROW(st.u8("w"), Error);
  std::vector<float> buf(5);
  EXPECT_THROW(st.copy_f32("w", buf.data(), 5), Error);
}
