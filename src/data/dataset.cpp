// dataset.cpp: see dataset.h.
#include "data/dataset.h"

#include <filesystem>
#include <nlohmann/json.hpp>

#include "core/check.h"
#include "data/file_io.h"
#include "data/token_file.h"

namespace scratchgpt {

namespace fs = std::filesystem;

Dataset Dataset::load(const std::string& dir) {
  std::error_code ec;
  SG_CHECK(!fs::exists(dir, ec) || fs::is_directory(dir, ec), "data directory '", dir,
           "' is a file, not a directory: give the directory 'scratchgpt prepare --out-dir' wrote");
  SG_CHECK(fs::is_directory(dir, ec), "data directory '", dir,
           "' does not exist: run 'scratchgpt prepare --out-dir ", dir, "' first");
  const bool bpe = fs::exists(fs::path(dir) / "encoder.json", ec);
  for (const char* f : {"train.bin", "val.bin", bpe ? "vocab.bpe" : "vocab.json"})
    SG_CHECK(fs::exists(fs::path(dir) / f, ec), "data directory '", dir, "' has no ", f,
             ": run 'scratchgpt prepare --out-dir ", dir, "' first");
  Dataset d;
  const std::string vocab_path = (fs::path(dir) / (bpe ? "encoder.json" : "vocab.json")).string();
  try {
    if (bpe) {
      std::string name = dir;  // the tokenizer's name, from meta.json when prepare wrote one
      const fs::path meta = fs::path(dir) / "meta.json";
      if (fs::exists(meta, ec)) {
        const nlohmann::json m = nlohmann::json::parse(read_file(meta.string()), nullptr, false);
        if (m.is_object() && m.contains("tokenizer") && m["tokenizer"].is_string())
          name = m["tokenizer"].get<std::string>();
      }
      d.tokenizer = Tokenizer::bpe(name, read_file(vocab_path),
                                   read_file((fs::path(dir) / "vocab.bpe").string()));
    } else {
      d.tokenizer = CharTokenizer::from_json(read_file(vocab_path));
    }
  } catch (const Error& e) {
    fail(vocab_path, ": ", e.what(), ": run 'scratchgpt prepare --out-dir ", dir, "' again");
  }
  TokenFile tr = read_token_file((fs::path(dir) / "train.bin").string());
  TokenFile va = read_token_file((fs::path(dir) / "val.bin").string());
  SG_CHECK(tr.vocab_size == d.tokenizer.vocab_size() && va.vocab_size == d.tokenizer.vocab_size(),
           "data directory '", dir, "': token files and vocab.json disagree on the vocabulary size",
           ": run 'scratchgpt prepare' again");
  d.train = std::move(tr.tokens);
  d.val = std::move(va.tokens);
  return d;
}

void get_batch(const uint16_t* data, int64_t n, int B, int T, Rng& rng, int32_t* x, int32_t* y) {
  SG_CHECK(B > 0 && T > 0, "batch size and context length must be positive (B=", B, ", T=", T, ")");
  SG_CHECK(n >= static_cast<int64_t>(T) + 1, "the dataset has ", n,
           " tokens, too short for a context of ", T,
           " (needs at least T+1): use a smaller --block-size or a longer text");
  std::vector<int64_t> ix(B);
  rng.randint(ix.data(), B, 0, n - T);
  for (int b = 0; b < B; ++b) {
    const uint16_t* src = data + ix[b];
    for (int t = 0; t < T; ++t) {
      x[b * T + t] = src[t];
      y[b * T + t] = src[t + 1];
    }
  }
}

}  // namespace scratchgpt
