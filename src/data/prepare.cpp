// prepare.cpp: see prepare.h.
#include "data/prepare.h"

#include <filesystem>
#include <nlohmann/json.hpp>

#include "core/bundled.h"
#include "core/check.h"
#include "tokenizer/tokenizer.h"
#include "data/file_io.h"
#include "data/token_file.h"
#include "core/utf8.h"

namespace scratchgpt {

namespace fs = std::filesystem;

std::string default_dataset_path() {
  const std::string path = find_bundled("data/tinyshakespeare.txt");
  SG_CHECK(!path.empty(), "cannot find the bundled data/tinyshakespeare.txt: pass --input FILE");
  return path;
}

namespace {

// Writes train.bin, val.bin and meta.json (the tokenizer's own files are the caller's).
PrepareResult write_splits(const std::string& input_path, const fs::path& out,
                           const std::string& tokenizer, int64_t chars, int vocab_size,
                           const std::vector<uint16_t>& train, const std::vector<uint16_t>& val) {
  write_token_file((out / "train.bin").string(), train, vocab_size);
  write_token_file((out / "val.bin").string(), val, vocab_size);
  nlohmann::json meta;
  meta["source"] = fs::absolute(input_path).string();
  meta["tokenizer"] = tokenizer;
  meta["num_chars"] = chars;
  meta["vocab_size"] = vocab_size;
  meta["train_tokens"] = train.size();
  meta["val_tokens"] = val.size();
  meta["token_format"] = "SGTK v1, uint16 little-endian (see src/data/token_file.h)";
  write_file_atomic((out / "meta.json").string(), meta.dump(2) + "\n");
  PrepareResult r;
  r.num_chars = chars;
  r.vocab_size = vocab_size;
  r.train_tokens = static_cast<int64_t>(train.size());
  r.val_tokens = static_cast<int64_t>(val.size());
  return r;
}

// nanoGPT's data/shakespeare/prepare.py: the first 90% of the characters are the training split,
// the rest validation, each encoded with GPT-2's BPE (or another byte-level BPE).
PrepareResult prepare_bpe(const std::string& input_path, const std::string& text,
                          const std::string& out_dir, const std::string& tokenizer) {
  std::string dir = tokenizer;
  if (tokenizer == "gpt2") {
    dir = find_bundled("data/gpt2");
    SG_CHECK(!dir.empty(), "cannot find the bundled data/gpt2/: run from the repository, or pass "
             "--tokenizer DIR");
  }
  const std::string enc = read_file((fs::path(dir) / "encoder.json").string());
  const std::string merges = read_file((fs::path(dir) / "vocab.bpe").string());
  const Tokenizer tok = Tokenizer::bpe(tokenizer, enc, merges);
  SG_CHECK(tok.vocab_size() <= 65535, "tokenizer ", tokenizer, " has ", tok.vocab_size(),
           " tokens, more than the 65535 a uint16 token file holds: use a smaller vocabulary");
  ensure_writable_dir(out_dir, "--out-dir");
  // Cut at the code point that starts the last 10% of the characters.
  int64_t chars = 0;
  for (char c : text) chars += (static_cast<unsigned char>(c) & 0xC0) != 0x80;
  const auto n_train_chars = static_cast<int64_t>(static_cast<double>(chars) * 0.9);
  size_t cut = 0;
  for (int64_t seen = 0; cut < text.size(); ++cut) {
    if ((static_cast<unsigned char>(text[cut]) & 0xC0) != 0x80 && seen++ == n_train_chars) break;
  }
  const std::vector<int32_t> tr = tok.bpe().encode_parallel(std::string_view(text).substr(0, cut), false, 0);
  const std::vector<int32_t> va = tok.bpe().encode_parallel(std::string_view(text).substr(cut), false, 0);
  const std::vector<uint16_t> train(tr.begin(), tr.end()), val(va.begin(), va.end());
  const fs::path out(out_dir);
  write_file_atomic((out / "encoder.json").string(), enc);
  write_file_atomic((out / "vocab.bpe").string(), merges);
  std::error_code ec;
  fs::remove(out / "vocab.json", ec);  // a character vocabulary of an earlier prepare
  return write_splits(input_path, out, tokenizer, chars, tok.vocab_size(), train, val);
}

}  // namespace

PrepareResult prepare_dataset(const std::string& input_path, const std::string& out_dir,
                              const std::string& tokenizer) {
  const std::string text = read_file(input_path);
  SG_CHECK(!text.empty(), "input file ", input_path, " is empty: give a text file with content");
  const size_t bad = utf8_invalid_offset(text);
  SG_CHECK(bad == std::string::npos, "input file ", input_path,
           " is not valid UTF-8 at byte offset ", bad,
           ": convert it to UTF-8 first (e.g. iconv -f LATIN1 -t UTF-8)");
  if (tokenizer != "char") return prepare_bpe(input_path, text, out_dir, tokenizer);
  const CharTokenizer tok = CharTokenizer::from_text(text);
  SG_CHECK(tok.vocab_size() <= 65535, "input file ", input_path, " has ", tok.vocab_size(),
           " distinct characters, more than the 65535 a uint16 token file holds: use a smaller "
           "alphabet");
  ensure_writable_dir(out_dir, "--out-dir");

  const std::vector<int32_t> ids = tok.encode(text);  // one id per code point
  const auto n = static_cast<int64_t>(ids.size());
  const auto n_train = static_cast<int64_t>(static_cast<double>(n) * 0.9);  // int(n * 0.9)
  std::vector<uint16_t> train(ids.begin(), ids.begin() + n_train);
  std::vector<uint16_t> val(ids.begin() + n_train, ids.end());

  const fs::path out(out_dir);
  write_file_atomic((out / "vocab.json").string(), tok.to_json() + "\n");
  std::error_code ec;
  for (const char* f : {"encoder.json", "vocab.bpe"}) fs::remove(out / f, ec);  // an earlier BPE
  return write_splits(input_path, out, "char", n, tok.vocab_size(), train, val);
}

}  // namespace scratchgpt
