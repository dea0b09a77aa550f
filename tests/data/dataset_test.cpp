// dataset_test.cpp: prepare writes a 90/10 split that decodes back to the input; get_batch draws
// its offsets exactly as torch.randint(len - T, (B,)) and its targets are the inputs shifted by
// one; bad inputs are errors naming the problem.
#include "data/dataset.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <filesystem>

#include "core/check.h"
#include "data/file_io.h"
#include "data/prepare.h"
#include "data/token_file.h"
#include "tokenizer/char_tokenizer.h"
#include "core/utf8.h"
#include "test_util.h"

using namespace scratchgpt;
namespace fs = std::filesystem;

namespace {

std::string tmp_dir(const std::string& name) {
  const fs::path d = test::scratch_root() / name;
  fs::create_directories(d);
  return d.string();
}

using test::error_of;

}  // namespace

TEST(Prepare, SplitsNinetyTenAndDecodesBack) {
  const std::string dir = tmp_dir("prep");
  const std::string text = "First Citizen:\nBefore we proceed any further, hear me speak. \xC3\xA9";
  write_file_atomic(dir + "/in.txt", text);
  const PrepareResult r = prepare_dataset(dir + "/in.txt", dir + "/out");
  const int64_t n = 62;  // Python len(text): code points (the é is 2 bytes, 1 character)
  EXPECT_EQ(r.num_chars, n);
  EXPECT_EQ(r.train_tokens, 55);  // Python: int(62 * 0.9)
  EXPECT_EQ(r.train_tokens + r.val_tokens, n);
  const Dataset d = Dataset::load(dir + "/out");
  std::vector<int32_t> all(d.train.begin(), d.train.end());
  all.insert(all.end(), d.val.begin(), d.val.end());
  EXPECT_EQ(d.tokenizer.decode(all), text);
  EXPECT_TRUE(fs::exists(dir + "/out/meta.json"));
}

// The directory's files are the user's: the same prepare again rewrites identical bytes, another
// one stops before writing anything unless --overwrite (prepare_dataset's rule).
TEST(Prepare, NeverReplacesOtherFilesWithoutOverwrite) {
  const std::string dir = tmp_dir("keep");
  write_file_atomic(dir + "/a.txt", "To be, or not to be: that is the question.\n");
  write_file_atomic(dir + "/b.txt", "Now is the winter of our discontent.\n");
  prepare_dataset(dir + "/a.txt", dir + "/out");
  const std::string train = read_file(dir + "/out/train.bin"), vocab = read_file(dir + "/out/vocab.json");
  prepare_dataset(dir + "/a.txt", dir + "/out");  // the same again: allowed, the same bytes
  EXPECT_EQ(read_file(dir + "/out/train.bin"), train);
  const std::string e = error_of([&] { prepare_dataset(dir + "/b.txt", dir + "/out"); });
  EXPECT_NE(e.find("exists with other contents"), std::string::npos) << e;
  EXPECT_NE(e.find("--overwrite"), std::string::npos) << e;
  EXPECT_EQ(read_file(dir + "/out/train.bin"), train);  // nothing written
  EXPECT_EQ(read_file(dir + "/out/vocab.json"), vocab);
  // A prepare in another format would remove nothing but write meta.pkl and other token bytes.
  EXPECT_NE(error_of([&] { prepare_dataset(dir + "/a.txt", dir + "/out", "char",
                                           TokenFormat::kNanoGpt); }).find("--overwrite"),
            std::string::npos);
  EXPECT_FALSE(fs::exists(dir + "/out/meta.pkl"));
  // A user's own file of the same name counts too.
  fs::create_directories(dir + "/own");
  write_file_atomic(dir + "/own/val.bin", "mine");
  EXPECT_NE(error_of([&] { prepare_dataset(dir + "/a.txt", dir + "/own"); }).find("val.bin"),
            std::string::npos);
  EXPECT_EQ(read_file(dir + "/own/val.bin"), "mine");
  EXPECT_FALSE(fs::exists(dir + "/own/train.bin"));
  prepare_dataset(dir + "/b.txt", dir + "/out", "char", TokenFormat::kScratchgpt, true);
  EXPECT_NE(read_file(dir + "/out/train.bin"), train);
  EXPECT_EQ(Dataset::load(dir + "/out").tokenizer.vocab_size(),
            CharTokenizer::from_text("Now is the winter of our discontent.\n").vocab_size());
}

TEST(Prepare, BadInputsAreNamedErrors) {
  const std::string dir = tmp_dir("bad");
  write_file_atomic(dir + "/empty.txt", "");
  write_file_atomic(dir + "/latin1.txt", "caf\xE9 au lait");
  EXPECT_NE(error_of([&] { prepare_dataset(dir + "/nope.txt", dir + "/o"); }).find("not found"),
            std::string::npos);
  EXPECT_NE(error_of([&] { prepare_dataset(dir + "/empty.txt", dir + "/o"); }).find("empty"),
            std::string::npos);
  EXPECT_NE(
      error_of([&] { prepare_dataset(dir + "/latin1.txt", dir + "/o"); }).find("byte offset 3"),
      std::string::npos);
  EXPECT_FALSE(fs::exists(dir + "/o/train.bin"));  // nothing written for bad input
  EXPECT_NE(error_of([&] { Dataset::load(dir + "/o2"); }).find("scratchgpt prepare"),
            std::string::npos);
}

// A character vocabulary past 65536 is written with uint32 ids and decodes back; the formats that
// hold uint16 ids refuse it before writing anything.
TEST(Prepare, VocabulariesBeyondUint16UseUint32Ids) {
  std::string text;
  for (uint32_t cp = 0x4E00; cp < 0x4E00 + 21000; ++cp) text += utf8_encode(cp);  // CJK
  for (uint32_t cp = 0x10000; cp < 0x10000 + 45000; ++cp) text += utf8_encode(cp);
  const std::string dir = tmp_dir("big");
  write_file_atomic(dir + "/in.txt", text);
  EXPECT_NE(error_of([&] {
              prepare_dataset(dir + "/in.txt", dir + "/n", "char", TokenFormat::kNanoGpt);
            }).find("65536"),
            std::string::npos);
  EXPECT_FALSE(fs::exists(dir + "/n/train.bin"));
  const PrepareResult r = prepare_dataset(dir + "/in.txt", dir + "/o");
  EXPECT_EQ(r.vocab_size, 66000);
  const Dataset d = Dataset::load(dir + "/o");
  std::vector<int32_t> all(d.train.begin(), d.train.end());
  all.insert(all.end(), d.val.begin(), d.val.end());
  EXPECT_EQ(d.tokenizer.decode(all), text);
}

// The same text prepared in nanoGPT's format, and its ids in llm.c's, load to the same ids as ours; nanoGPT's
// raw files need the vocabulary size unless a tokenizer lies beside them, and a directory without
// a tokenizer gets GPT-2's.
TEST(Prepare, NanoGptAndLlmcDirectoriesLoadTheSameIds) {
  const std::string dir = tmp_dir("formats");
  write_file_atomic(dir + "/in.txt", "Hello, world! It's a test of the formats.\nSecond line.\n");
  prepare_dataset(dir + "/in.txt", dir + "/ours", "gpt2");
  prepare_dataset(dir + "/in.txt", dir + "/nano", "gpt2", TokenFormat::kNanoGpt);
  const Dataset ours = Dataset::load(dir + "/ours");
  // llm.c's shards of the same ids (prepare --format llmc makes llm.c's own split instead: below).
  fs::create_directories(dir + "/llmc");
  write_token_file(dir + "/llmc/train.bin", ours.train, 50257, TokenFormat::kLlmc);
  write_token_file(dir + "/llmc/val.bin", ours.val, 50257, TokenFormat::kLlmc);
  const Dataset nano = Dataset::load(dir + "/nano", 50257);
  const Dataset llmc = Dataset::load(dir + "/llmc");
  EXPECT_EQ(nano.train, ours.train);
  EXPECT_EQ(nano.val, ours.val);
  EXPECT_EQ(llmc.train, ours.train);
  EXPECT_EQ(llmc.val, ours.val);
  EXPECT_EQ(nano.format, TokenFormat::kNanoGpt);
  EXPECT_EQ(llmc.format, TokenFormat::kLlmc);
  // Beside a tokenizer, raw ids need no --vocab-size: the tokenizer's is theirs.
  const Dataset nano_beside = Dataset::load(dir + "/nano");
  EXPECT_EQ(nano_beside.train, ours.train);
  EXPECT_EQ(nano_beside.val, ours.val);
  // As nanoGPT's own data/shakespeare dir: the two raw files and nothing else; and llm.c's
  // tiny_shakespeare_{train,val}.bin names.
  fs::create_directories(dir + "/bare");
  fs::copy_file(dir + "/nano/train.bin", dir + "/bare/train.bin");
  fs::copy_file(dir + "/nano/val.bin", dir + "/bare/val.bin");
  const Dataset bare = Dataset::load(dir + "/bare", 50257);
  EXPECT_EQ(bare.train, ours.train);
  EXPECT_TRUE(bare.tokenizer.same_as(ours.tokenizer));
  EXPECT_NE(error_of([&] { Dataset::load(dir + "/bare", 65); }).find("vocab"), std::string::npos);
  EXPECT_NE(error_of([&] { Dataset::load(dir + "/bare"); }).find("--vocab-size"),
            std::string::npos);  // alone, raw ids need it
  fs::create_directories(dir + "/shards");
  fs::copy_file(dir + "/llmc/train.bin", dir + "/shards/tiny_shakespeare_train.bin");
  fs::copy_file(dir + "/llmc/val.bin", dir + "/shards/tiny_shakespeare_val.bin");
  const Dataset shards = Dataset::load(dir + "/shards");
  EXPECT_EQ(shards.val, ours.val);
  EXPECT_TRUE(shards.tokenizer.same_as(ours.tokenizer));
  // Mixed formats and a character text in llm.c's format are refused.
  fs::copy_file(dir + "/ours/val.bin", dir + "/bare/val.bin", fs::copy_options::overwrite_existing);
  EXPECT_NE(error_of([&] { Dataset::load(dir + "/bare", 50257); }).find("format"),
            std::string::npos);
  EXPECT_NE(error_of([&] {
              prepare_dataset(dir + "/in.txt", dir + "/c", "char", TokenFormat::kLlmc);
            }).find("GPT-2"),
            std::string::npos);
}

TEST(GetBatch, OffsetsFromRandintAndTargetsShiftedByOne) {
  std::vector<uint32_t> data(1000);
  for (size_t i = 0; i < data.size(); ++i) data[i] = static_cast<uint32_t>((i * 7919) % 65);
  const int B = 4, T = 8;
  Rng rng(1337), oracle(1337);
  std::vector<int32_t> x(B * T), y(B * T);
  get_batch(data.data(), 1000, B, T, rng, x.data(), y.data());
  std::vector<int64_t> ix(B);
  oracle.randint(ix.data(), B, 0, 1000 - T);  // torch.randint(len(data) - block_size, (B,))
  for (int b = 0; b < B; ++b)
    for (int t = 0; t < T; ++t) {
      EXPECT_EQ(x[b * T + t], data[ix[b] + t]);
      EXPECT_EQ(y[b * T + t], data[ix[b] + t + 1]);
      if (t + 1 < T) {
        EXPECT_EQ(y[b * T + t], x[b * T + t + 1]);
      }
    }
  // Both generators are in the same state afterwards: nothing else was drawn.
  EXPECT_EQ(rng.get_state(), oracle.get_state());
}

TEST(GetBatch, ShortDataIsAnError) {
  std::vector<uint32_t> data(8, 1);
  Rng rng(1);
  std::vector<int32_t> x(8), y(8);
  EXPECT_NE(
      error_of([&] { get_batch(data.data(), 8, 1, 8, rng, x.data(), y.data()); }).find("too short"),
      std::string::npos);
  // T + 1 tokens is enough: the only offset is 0.
  data.push_back(2);
  get_batch(data.data(), 9, 1, 8, rng, x.data(), y.data());
  EXPECT_EQ(y[7], 2);
}

namespace {

uint32_t u32_at(const std::string& b, size_t off) {
  return static_cast<uint32_t>(static_cast<uint8_t>(b[off])) |
         static_cast<uint32_t>(static_cast<uint8_t>(b[off + 1])) << 8 |
         static_cast<uint32_t>(static_cast<uint8_t>(b[off + 2])) << 16 |
         static_cast<uint32_t>(static_cast<uint8_t>(b[off + 3])) << 24;
}

}  // namespace

// prepare --format llmc is llm.c's dev/data/tinyshakespeare.py. On Tiny Shakespeare its files
// hold what that script says it writes (its docstring: "writing 32,768 tokens to
// tiny_shakespeare_val.bin (66,560 bytes)", "305,260 tokens to tiny_shakespeare_train.bin
// (611,544 bytes)"); each blank-line section follows one <|endoftext|>; and gpt2_tokenizer.bin,
// read as llm.c's tokenizer_init reads it, decodes the ids back to the text.
TEST(Prepare, LlmcFormatIsLlmcsTinyShakespeareDataStep) {
  const std::string dir = tmp_dir("llmc_step");
  const std::string input = default_dataset_path();
  const PrepareResult r = prepare_dataset(input, dir, "gpt2", TokenFormat::kLlmc);
  EXPECT_EQ(r.val_tokens, 32768);
  EXPECT_EQ(r.train_tokens, 305260);
  EXPECT_EQ(fs::file_size(dir + "/tiny_shakespeare_val.bin"), 66560u);
  EXPECT_EQ(fs::file_size(dir + "/tiny_shakespeare_train.bin"), 611544u);
  EXPECT_FALSE(fs::exists(dir + "/train.bin"));
  const Dataset d = Dataset::load(dir);  // the names are found, the format told by its magic
  EXPECT_EQ(d.format, TokenFormat::kLlmc);
  std::vector<uint32_t> ids(d.val.begin(), d.val.end());  // llm.c's order: val first
  ids.insert(ids.end(), d.train.begin(), d.train.end());
  const std::string text = read_file(input);
  size_t sections = 1;
  for (size_t p = text.find("\n\n"); p != std::string::npos; p = text.find("\n\n", p + 2)) ++sections;
  EXPECT_EQ(std::count(ids.begin(), ids.end(), 50256u), static_cast<std::ptrdiff_t>(sections));
  EXPECT_EQ(ids[0], 50256u);

  // gpt2_tokenizer.bin as llm.c's tokenizer_init reads it: 256 uint32 of header, then
  // (length byte, bytes) per token.
  const std::string tb = read_file(dir + "/gpt2_tokenizer.bin");
  ASSERT_GE(tb.size(), 1024u);
  EXPECT_EQ(u32_at(tb, 0), 20240328u);
  EXPECT_EQ(u32_at(tb, 4), 2u);
  ASSERT_EQ(u32_at(tb, 8), 50257u);
  EXPECT_EQ(u32_at(tb, 12), 50256u);
  std::vector<std::string> table;
  for (size_t off = 1024; off < tb.size();) {
    const size_t len = static_cast<uint8_t>(tb[off]);
    ASSERT_GT(len, 0u);
    table.push_back(tb.substr(off + 1, len));
    off += 1 + len;
  }
  ASSERT_EQ(table.size(), 50257u);
  EXPECT_EQ(table[50256], "<|endoftext|>");
  std::string decoded;
  for (uint32_t id : ids)
    if (id != 50256u) decoded += table[id];
  EXPECT_EQ(decoded, text);  // the "\n\n" put back after every section but the last

  // A text too short for 32,768 val tokens keeps a tenth.
  const std::string small = tmp_dir("llmc_small");
  write_file_atomic(small + "/in.txt", text.substr(0, 20000));
  const PrepareResult s = prepare_dataset(small + "/in.txt", small + "/out", "gpt2", TokenFormat::kLlmc);
  EXPECT_EQ(s.val_tokens, (s.val_tokens + s.train_tokens) / 10);
}
