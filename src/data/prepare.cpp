// prepare.cpp: see prepare.h.
#include "data/prepare.h"

#include <algorithm>
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

// The two splits and their files' names: train.bin and val.bin, or llm.c's.
struct Splits {
  std::vector<uint32_t> train, val;
  const char* train_name = "train.bin";
  const char* val_name = "val.bin";
};

// The first n_train ids are train, the rest val (nanoGPT's prepare.py).
Splits split_at(const std::vector<int32_t>& ids, size_t n_train) {
  Splits s;
  s.train.assign(ids.begin(), ids.begin() + static_cast<std::ptrdiff_t>(n_train));
  s.val.assign(ids.begin() + static_cast<std::ptrdiff_t>(n_train), ids.end());
  return s;
}

// What a prepare leaves in its directory: files to write (name, bytes) and files of an earlier
// prepare in another way to remove.
struct DatasetFiles {
  std::vector<std::pair<std::string, std::string>> write;
  std::vector<std::string> remove;
};

bool same_bytes(const fs::path& path, const std::string& bytes) {
  std::error_code ec;
  if (fs::file_size(path, ec) != bytes.size() || ec) return false;
  return read_file(path.string()) == bytes;
}

// Checks every file first (see prepare_dataset's rule), then writes each atomically.
void commit_files(const fs::path& out, const DatasetFiles& files, bool overwrite) {
  std::error_code ec;
  for (const auto& [name, bytes] : files.write)
    if (!overwrite && fs::exists(out / name, ec) && !same_bytes(out / name, bytes))
      fail((out / name).string(), " exists with other contents (an earlier prepare of another "
           "input, tokenizer or format?): give --overwrite to replace it, or another --out-dir");
  for (const std::string& name : files.remove)
    if (!overwrite && fs::exists(out / name, ec))
      fail((out / name).string(), " is left from a prepare with another tokenizer or format, "
           "and this one would remove it: give --overwrite, or another --out-dir");
  for (const auto& [name, bytes] : files.write) write_file_atomic((out / name).string(), bytes);
  for (const std::string& name : files.remove) fs::remove(out / name, ec);
}

// Adds the two token files and meta.json (the tokenizer's own files are the caller's).
PrepareResult add_splits(DatasetFiles& files, const std::string& input_path,
                         const std::string& tokenizer, TokenFormat format, int64_t chars,
                         int vocab_size, const Splits& s) {
  files.write.emplace_back(s.train_name, token_file_bytes(s.train, vocab_size, format));
  files.write.emplace_back(s.val_name, token_file_bytes(s.val, vocab_size, format));
  nlohmann::json meta;
  meta["source"] = fs::absolute(input_path).string();
  meta["tokenizer"] = tokenizer;
  meta["num_chars"] = chars;
  meta["vocab_size"] = vocab_size;
  meta["train_tokens"] = s.train.size();
  meta["val_tokens"] = s.val.size();
  meta["token_format"] = std::string(token_format_name(format)) +
                         " (see src/data/token_file.h): " +
                         (format == TokenFormat::kScratchgpt
                              ? (vocab_size > 65536 ? "SGTK v2, uint32" : "SGTK v2, uint16")
                          : format == TokenFormat::kLlmc ? "llm.c's 1024-byte header, uint16"
                                                         : "raw uint16, no header") +
                         " little-endian";
  files.write.emplace_back("meta.json", meta.dump(2) + "\n");
  PrepareResult r;
  r.num_chars = chars;
  r.vocab_size = vocab_size;
  r.train_tokens = static_cast<int64_t>(s.train.size());
  r.val_tokens = static_cast<int64_t>(s.val.size());
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

// llm.c's dev/data/tinyshakespeare.py: the text cut at every blank line (Python's
// text.split("\n\n")) into sections, each opened by <|endoftext|> and encoded on its own with the
// "\n\n" put back after all but the last (llm.c keeps that for backwards compatibility).
std::vector<int32_t> llmc_document_ids(const BpeTokenizer& bpe, std::string_view text) {
  SG_CHECK(bpe.eot_id() >= 0, "--format llmc opens each section with <|endoftext|>, and the "
           "tokenizer has none: use --tokenizer gpt2");
  std::vector<int32_t> ids;
  std::string section;
  for (size_t from = 0;;) {
    const size_t cut = text.find("\n\n", from);
    const bool last = cut == std::string_view::npos;
    section.assign(text.substr(from, last ? std::string_view::npos : cut - from));
    if (!last) section += "\n\n";
    ids.push_back(bpe.eot_id());
    const std::vector<int32_t> piece = bpe.encode(section);
    ids.insert(ids.end(), piece.begin(), piece.end());
    if (last) break;
    from = cut + 2;
  }
  return ids;
}

// llm.c's split: the first 32,768 tokens are val (a tenth of a text too short for that), the
// rest train, named as llm.c's train_gpt2.c reads them.
Splits llmc_splits(const std::vector<int32_t>& ids) {
  constexpr size_t kLlmcValTokens = 32768;
  const size_t n_val = std::min(kLlmcValTokens, ids.size() / 10);
  Splits s;
  s.val.assign(ids.begin(), ids.begin() + static_cast<std::ptrdiff_t>(n_val));
  s.train.assign(ids.begin() + static_cast<std::ptrdiff_t>(n_val), ids.end());
  s.train_name = "tiny_shakespeare_train.bin";
  s.val_name = "tiny_shakespeare_val.bin";
  return s;
}

// nanoGPT's data/shakespeare/prepare.py: the first 90% of the characters are the training split,
// the rest validation, each encoded with GPT-2's BPE (or another byte-level BPE). --format llmc:
// llm.c's data step instead (llmc_document_ids, llmc_splits) and its gpt2_tokenizer.bin.
PrepareResult prepare_bpe(const std::string& input_path, const std::string& text,
                          const std::string& out_dir, const std::string& tokenizer,
                          TokenFormat format, bool overwrite) {
  const Tokenizer tok = Tokenizer::bpe(tokenizer);
  check_format_holds(format, tokenizer, tok.vocab_size());
  ensure_writable_dir(out_dir, "--out-dir");
  int64_t chars = 0;
  for (char c : text) chars += (static_cast<unsigned char>(c) & 0xC0) != 0x80;
  Splits splits;
  if (format == TokenFormat::kLlmc) {
    splits = llmc_splits(llmc_document_ids(tok.bpe(), text));
  } else {
    // Cut at the code point that starts the last 10% of the characters.
    const auto n_train_chars = static_cast<int64_t>(static_cast<double>(chars) * 0.9);
    size_t cut = 0;
    for (int64_t seen = 0; cut < text.size(); ++cut) {
      if ((static_cast<unsigned char>(text[cut]) & 0xC0) != 0x80 && seen++ == n_train_chars) break;
    }
    std::vector<int32_t> ids =
        tok.bpe().encode_parallel(std::string_view(text).substr(0, cut), false, 0);
    const size_t n_train = ids.size();
    const std::vector<int32_t> va =
        tok.bpe().encode_parallel(std::string_view(text).substr(cut), false, 0);
    ids.insert(ids.end(), va.begin(), va.end());
    splits = split_at(ids, n_train);
  }
  DatasetFiles files;
  files.write = {{"encoder.json", tok.encoder_json()}, {"vocab.bpe", tok.vocab_bpe()}};
  files.remove = {"vocab.json", "meta.pkl"};  // a character vocabulary of an earlier prepare
  if (format == TokenFormat::kLlmc) {
    files.write.emplace_back("gpt2_tokenizer.bin", tok.bpe().llmc_tokenizer_file());
    files.remove.insert(files.remove.end(), {"train.bin", "val.bin"});  // an earlier prepare's
  }
  const PrepareResult r =
      add_splits(files, input_path, tokenizer, format, chars, tok.vocab_size(), splits);
  commit_files(out_dir, files, overwrite);
  return r;
}

}  // namespace

PrepareResult prepare_dataset(const std::string& input_path, const std::string& out_dir,
                              const std::string& tokenizer, TokenFormat format, bool overwrite) {
  const std::string text = read_file(input_path);
  SG_CHECK(!text.empty(), "input file ", input_path, " is empty: give a text file with content");
  const size_t bad = utf8_invalid_offset(text);
  SG_CHECK(bad == std::string::npos, "input file ", input_path,
           " is not valid UTF-8 at byte offset ", bad,
           ": convert it to UTF-8 first (e.g. iconv -f LATIN1 -t UTF-8)");
  if (tokenizer != "char")
    return prepare_bpe(input_path, text, out_dir, tokenizer, format, overwrite);
  const CharTokenizer tok = CharTokenizer::from_text(text);
  check_format_holds(format, "the text's vocabulary of characters", tok.vocab_size());
  ensure_writable_dir(out_dir, "--out-dir");

  const std::vector<int32_t> ids = tok.encode(text);  // one id per code point
  const auto n_train = static_cast<size_t>(static_cast<double>(ids.size()) * 0.9);  // int(n * 0.9)

  DatasetFiles files;
  files.write = {{"vocab.json", tok.to_json() + "\n"}};
  files.remove = {"encoder.json", "vocab.bpe"};  // an earlier BPE prepare's
  // nanoGPT's train.py reads vocab_size from meta.pkl (else it builds a model of 50304 tokens).
  if (format == TokenFormat::kNanoGpt)
    files.write.emplace_back("meta.pkl", tok.to_meta_pkl());
  else
    files.remove.emplace_back("meta.pkl");
  const PrepareResult r = add_splits(files, input_path, "char", format,
                                     static_cast<int64_t>(ids.size()), tok.vocab_size(),
                                     split_at(ids, n_train));
  commit_files(out_dir, files, overwrite);
  return r;
}

}  // namespace scratchgpt
