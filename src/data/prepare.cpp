// prepare.cpp: see prepare.h.
#include "data/prepare.h"

#include <filesystem>
#include <nlohmann/json.hpp>

#include "core/bundled.h"
#include "core/check.h"
#include "data/char_tokenizer.h"
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

PrepareResult prepare_dataset(const std::string& input_path, const std::string& out_dir) {
  const std::string text = read_file(input_path);
  SG_CHECK(!text.empty(), "input file ", input_path, " is empty: give a text file with content");
  const size_t bad = utf8_invalid_offset(text);
  SG_CHECK(bad == std::string::npos, "input file ", input_path,
           " is not valid UTF-8 at byte offset ", bad,
           ": convert it to UTF-8 first (e.g. iconv -f LATIN1 -t UTF-8)");
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
  write_token_file((out / "train.bin").string(), train, tok.vocab_size());
  write_token_file((out / "val.bin").string(), val, tok.vocab_size());
  write_file_atomic((out / "vocab.json").string(), tok.to_json() + "\n");
  nlohmann::json meta;
  meta["source"] = fs::absolute(input_path).string();
  meta["num_chars"] = n;
  meta["vocab_size"] = tok.vocab_size();
  meta["train_tokens"] = train.size();
  meta["val_tokens"] = val.size();
  meta["token_format"] = "SGTK v1, uint16 little-endian (see src/data/token_file.h)";
  write_file_atomic((out / "meta.json").string(), meta.dump(2) + "\n");

  PrepareResult r;
  r.num_chars = n;
  r.vocab_size = tok.vocab_size();
  r.train_tokens = static_cast<int64_t>(train.size());
  r.val_tokens = static_cast<int64_t>(val.size());
  return r;
}

}  // namespace scratchgpt
