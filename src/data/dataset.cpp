// dataset.cpp: see dataset.h.
#include "data/dataset.h"

#include <filesystem>
#include <nlohmann/json.hpp>

#include "core/check.h"
#include "core/mapped_file.h"
#include "data/file_io.h"

namespace scratchgpt {

namespace fs = std::filesystem;

namespace {

// dir/<split>.bin, or llm.c's one dir/*_<split>.bin ("" when there is neither).
std::string split_file(const std::string& dir, const std::string& split) {
  const fs::path ours = fs::path(dir) / (split + ".bin");
  std::error_code ec;
  if (fs::exists(ours, ec)) return ours.string();
  std::string found;
  const std::string suffix = "_" + split + ".bin";
  for (const auto& e : fs::directory_iterator(dir, ec)) {
    const std::string name = e.path().filename().string();
    if (name.size() <= suffix.size() || name.compare(name.size() - suffix.size(), suffix.size(), suffix) != 0)
      continue;
    SG_CHECK(found.empty(), "data directory '", dir, "' holds more than one *", suffix, " (",
             fs::path(found).filename().string(), ", ", name,
             "): keep one training and one validation shard per directory");
    found = e.path().string();
  }
  return found;
}

}  // namespace

Dataset Dataset::load(const std::string& dir, int raw_vocab_size) {
  std::error_code ec;
  SG_CHECK(!fs::exists(dir, ec) || fs::is_directory(dir, ec), "data directory '", dir,
           "' is a file, not a directory: give the directory 'scratchgpt prepare --out-dir' wrote");
  SG_CHECK(fs::is_directory(dir, ec), "data directory '", dir,
           "' does not exist: run 'scratchgpt prepare --out-dir ", dir, "' first");
  const std::string train_path = split_file(dir, "train"), val_path = split_file(dir, "val");
  for (const auto& [path, name] : {std::pair{train_path, "train.bin"}, {val_path, "val.bin"}})
    SG_CHECK(!path.empty(), "data directory '", dir, "' has no ", name,
             ": run 'scratchgpt prepare --out-dir ", dir, "' first");

  Dataset d;
  const bool has_bpe = fs::exists(fs::path(dir) / "encoder.json", ec);
  const bool has_chars = fs::exists(fs::path(dir) / "vocab.json", ec);
  const std::string vocab_path = (fs::path(dir) / (has_bpe ? "encoder.json" : "vocab.json")).string();
  // nanoGPT's shakespeare_char: meta.pkl (its itos/stoi) beside raw train.bin and val.bin.
  const std::string pkl = (fs::path(dir) / "meta.pkl").string();
  const bool has_pkl = !has_bpe && !has_chars && fs::exists(pkl, ec);
  if (has_pkl) {
    const MappedFile f(pkl);
    d.tokenizer = CharTokenizer::from_meta_pkl(f.data(), f.size(), pkl);
  }
  if (has_bpe || has_chars) {
    try {
      if (has_bpe) {
        std::string name = dir;  // the tokenizer's name, from meta.json when prepare wrote one
        const fs::path meta = fs::path(dir) / "meta.json";
        if (fs::exists(meta, ec)) {
          const nlohmann::json m = nlohmann::json::parse(read_file(meta.string()), nullptr, false);
          if (m.is_object() && m.contains("tokenizer") && m["tokenizer"].is_string())
            name = m["tokenizer"].get<std::string>();
        }
        SG_CHECK(fs::exists(fs::path(dir) / "vocab.bpe", ec), "data directory '", dir,
                 "' has encoder.json but no vocab.bpe");
        d.tokenizer = Tokenizer::bpe(name, read_file(vocab_path),
                                     read_file((fs::path(dir) / "vocab.bpe").string()));
      } else {
        d.tokenizer = CharTokenizer::from_json(read_file(vocab_path));
      }
    } catch (const Error& e) {
      fail(vocab_path, ": ", e.what(), ": run 'scratchgpt prepare --out-dir ", dir, "' again");
    }
  }
  // nanoGPT's raw ids do not say their vocabulary: the caller's (--vocab-size, or the model's),
  // else the tokenizer's beside them.
  const int beside = has_bpe || has_chars || has_pkl ? d.tokenizer.vocab_size() : 0;
  TokenFile tr = read_token_file(train_path, raw_vocab_size, beside);
  TokenFile va = read_token_file(val_path, raw_vocab_size, beside);
  SG_CHECK(tr.format == va.format, "data directory '", dir, "': ", train_path, " is ",
           token_format_name(tr.format), "'s format but ", val_path, " is ",
           token_format_name(va.format), "'s: prepare both splits with one tool");
  d.format = tr.format;
  if (!has_bpe && !has_chars && !has_pkl) {
    // llm.c's shards are GPT-2's tokens; so are nanoGPT's shakespeare and openwebtext.
    SG_CHECK(tr.format != TokenFormat::kScratchgpt, "data directory '", dir,
             "' has no vocab.json (or encoder.json and vocab.bpe): run 'scratchgpt prepare "
             "--out-dir ", dir, "' first");
    SG_CHECK(tr.vocab_size == kGpt2VocabSize, "data directory '", dir,
             "' holds nanoGPT's raw token files of ", tr.vocab_size,
             " tokens and no vocabulary: put the tokenizer beside them (nanoGPT's meta.pkl, "
             "vocab.json, or encoder.json + vocab.bpe), or run 'scratchgpt prepare' on the text");
    d.tokenizer = Tokenizer::bpe("gpt2");
  }
  SG_CHECK(tr.vocab_size == d.tokenizer.vocab_size() && va.vocab_size == d.tokenizer.vocab_size(),
           "data directory '", dir, "': the token files' vocabulary (", tr.vocab_size, ", ",
           va.vocab_size, ") and the tokenizer's (", d.tokenizer.describe(),
           ") disagree: run 'scratchgpt prepare' again",
           tr.format == TokenFormat::kNanoGpt ? ", or pass the tokenizer's --vocab-size" : "");
  d.train = std::move(tr.tokens);
  d.val = std::move(va.tokens);
  return d;
}

void get_batch(const uint32_t* data, int64_t n, int B, int T, Rng& rng, int32_t* x, int32_t* y) {
  SG_CHECK(B > 0 && T > 0, "batch size and context length must be positive (B=", B, ", T=", T, ")");
  SG_CHECK(n >= static_cast<int64_t>(T) + 1, "the dataset has ", n,
           " tokens, too short for a context of ", T,
           " (needs at least T+1): use a smaller --block-size or a longer text");
  std::vector<int64_t> ix(B);
  rng.randint(ix.data(), B, 0, n - T);
  for (int b = 0; b < B; ++b) {
    const uint32_t* src = data + ix[b];
    for (int t = 0; t < T; ++t) {
      x[b * T + t] = static_cast<int32_t>(src[t]);
      y[b * T + t] = static_cast<int32_t>(src[t + 1]);
    }
  }
}

}  // namespace scratchgpt
