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
                           const std::string& tokenizer, TokenFormat format, int64_t chars,
                           int vocab_size, const std::vector<int32_t>& ids, size_t n_train) {
  const std::vector<uint32_t> train(ids.begin(), ids.begin() + static_cast<std::ptrdiff_t>(n_train));
  const std::vector<uint32_t> val(ids.begin() + static_cast<std::ptrdiff_t>(n_train), ids.end());
  write_token_file((out / "train.bin").string(), train, vocab_size, format);
  write_token_file((out / "val.bin").string(), val, vocab_size, format);
  nlohmann::json meta;
  meta["source"] = fs::absolute(input_path).string();
  meta["tokenizer"] = tokenizer;
  meta["num_chars"] = chars;
  meta["vocab_size"] = vocab_size;
  meta["train_tokens"] = train.size();
  meta["val_tokens"] = val.size();
  meta["token_format"] = std::string(token_format_name(format)) +
                         " (see src/data/token_file.h): " +
                         (format == TokenFormat::kScratchgpt
                              ? (vocab_size > 65536 ? "SGTK v2, uint32" : "SGTK v2, uint16")
                          : format == TokenFormat::kLlmc ? "llm.c's 1024-byte header, uint16"
                                                         : "raw uint16, no header") +
                         " little-endian";
  write_file_atomic((out / "meta.json").string(), meta.dump(2) + "\n");
  PrepareResult r;
  r.num_chars = chars;
  r.vocab_size = vocab_size;
  r.train_tokens = static_cast<int64_t>(train.size());
  r.val_tokens = static_cast<int64_t>(val.size());
  return r;
}

// Refuses a vocabulary the format cannot hold before any work.
void check_format_holds(TokenFormat format, const std::string& tokenizer, int vocab_size) {
  SG_CHECK(format == TokenFormat::kScratchgpt || vocab_size <= 65536, "--format ",
           token_format_name(format), " holds uint16 ids, so vocabularies up to 65536, and ",
           tokenizer, " has ", vocab_size, ": use --format scratchgpt");
  SG_CHECK(format != TokenFormat::kLlmc || vocab_size == kGpt2VocabSize,
           "--format llmc holds GPT-2's tokens only (llm.c's shards say nothing of their "
           "vocabulary), and ", tokenizer, " has ", vocab_size, ": add --tokenizer gpt2, or use "
           "--format scratchgpt or nanogpt");
}

// nanoGPT's data/shakespeare/prepare.py: the first 90% of the characters are the training split,
// the rest validation, each encoded with GPT-2's BPE (or another byte-level BPE).
PrepareResult prepare_bpe(const std::string& input_path, const std::string& text,
                          const std::string& out_dir, const std::string& tokenizer,
                          TokenFormat format) {
  const Tokenizer tok = Tokenizer::bpe(tokenizer);
  check_format_holds(format, tokenizer, tok.vocab_size());
  ensure_writable_dir(out_dir, "--out-dir");
  // Cut at the code point that starts the last 10% of the characters.
  int64_t chars = 0;
  for (char c : text) chars += (static_cast<unsigned char>(c) & 0xC0) != 0x80;
  const auto n_train_chars = static_cast<int64_t>(static_cast<double>(chars) * 0.9);
  size_t cut = 0;
  for (int64_t seen = 0; cut < text.size(); ++cut) {
    if ((static_cast<unsigned char>(text[cut]) & 0xC0) != 0x80 && seen++ == n_train_chars) break;
  }
  std::vector<int32_t> ids = tok.bpe().encode_parallel(std::string_view(text).substr(0, cut), false, 0);
  const size_t n_train = ids.size();
  const std::vector<int32_t> va = tok.bpe().encode_parallel(std::string_view(text).substr(cut), false, 0);
  ids.insert(ids.end(), va.begin(), va.end());
  const fs::path out(out_dir);
  write_file_atomic((out / "encoder.json").string(), tok.encoder_json());
  write_file_atomic((out / "vocab.bpe").string(), tok.vocab_bpe());
  std::error_code ec;
  fs::remove(out / "vocab.json", ec);  // a character vocabulary of an earlier prepare
  return write_splits(input_path, out, tokenizer, format, chars, tok.vocab_size(), ids, n_train);
}

}  // namespace

PrepareResult prepare_dataset(const std::string& input_path, const std::string& out_dir,
                              const std::string& tokenizer, TokenFormat format) {
  const std::string text = read_file(input_path);
  SG_CHECK(!text.empty(), "input file ", input_path, " is empty: give a text file with content");
  const size_t bad = utf8_invalid_offset(text);
  SG_CHECK(bad == std::string::npos, "input file ", input_path,
           " is not valid UTF-8 at byte offset ", bad,
           ": convert it to UTF-8 first (e.g. iconv -f LATIN1 -t UTF-8)");
  if (tokenizer != "char") return prepare_bpe(input_path, text, out_dir, tokenizer, format);
  const CharTokenizer tok = CharTokenizer::from_text(text);
  check_format_holds(format, "the text's vocabulary of characters", tok.vocab_size());
  ensure_writable_dir(out_dir, "--out-dir");

  const std::vector<int32_t> ids = tok.encode(text);  // one id per code point
  const auto n_train = static_cast<size_t>(static_cast<double>(ids.size()) * 0.9);  // int(n * 0.9)

  const fs::path out(out_dir);
  write_file_atomic((out / "vocab.json").string(), tok.to_json() + "\n");
  std::error_code ec;
  for (const char* f : {"encoder.json", "vocab.bpe"}) fs::remove(out / f, ec);  // an earlier BPE
  return write_splits(input_path, out, "char", format, static_cast<int64_t>(ids.size()),
                      tok.vocab_size(), ids, n_train);
}

}  // namespace scratchgpt
