// tokenize.cpp: see tokenize.h.
#include "run/tokenize.h"

#include <cerrno>
#include <charconv>
#include <chrono>
#include <filesystem>
#include <iostream>
#include <iterator>
#include <sstream>
#include <vector>

#include "core/check.h"
#include "data/file_io.h"
#include "data/prepare.h"
#include "tokenizer/bpe.h"
#include "tokenizer/bpe_train.h"

namespace scratchgpt {

namespace {

std::string read_input(const std::string& input) {
  if (input != "-") return read_file(input);
  std::ostringstream ss;
  ss << std::cin.rdbuf();
  return ss.str();
}

std::vector<int32_t> parse_ids(const std::string& text, const std::string& input) {
  std::vector<int32_t> ids;
  std::istringstream in(text);
  std::string word;
  while (in >> word) {
    char* end = nullptr;
    errno = 0;
    const long v = std::strtol(word.c_str(), &end, 10);
    SG_CHECK(end && *end == '\0' && errno == 0 && v >= INT32_MIN && v <= INT32_MAX, "--decode: '",
             word, "' (token ", ids.size(), " of ", input == "-" ? "standard input" : input,
             ") is not a token id: give whole numbers separated by spaces");
    ids.push_back(static_cast<int32_t>(v));
  }
  return ids;
}

}  // namespace

void run_tokenize(const TokenizeRequest& req, std::FILE* out) {
  SG_CHECK(req.threads >= 0, "--threads must be >= 0 (0: all cores), got ", req.threads);
  const BpeTokenizer tok =
      req.tokenizer == "gpt2" ? BpeTokenizer::gpt2() : BpeTokenizer::load(req.tokenizer);
  const std::string text = read_input(req.input);
  if (req.decode) {
    const std::string bytes = tok.decode(parse_ids(text, req.input));
    std::fwrite(bytes.data(), 1, bytes.size(), out);
    return;
  }
  const std::vector<int32_t> ids = tok.encode_parallel(text, req.allow_special, req.threads);
  // One line, ids separated by spaces, written with std::to_chars into one buffer (an id is at
  // most 10 digits and a sign): printing millions of ids takes a fraction of encoding's time.
  std::string line(ids.size() * 12 + 1, '\0');
  char* p = line.data();
  for (size_t i = 0; i < ids.size(); ++i) {
    if (i) *p++ = ' ';
    p = std::to_chars(p, line.data() + line.size(), ids[i]).ptr;
  }
  *p++ = '\n';
  std::fwrite(line.data(), 1, static_cast<size_t>(p - line.data()), out);
}

void run_tokenizer_train(const TokenizerTrainRequest& req, std::FILE* out) {
  SG_CHECK(!req.out.empty(), "--out is required: the directory for encoder.json and vocab.bpe");
  const std::string path = req.input.empty() ? default_dataset_path() : req.input;
  // A tokenizer already there (its data may have been prepared with it) stays unless asked.
  for (const char* f : {"encoder.json", "vocab.bpe"}) {
    std::error_code ec;
    SG_CHECK(req.overwrite || !std::filesystem::exists(std::filesystem::path(req.out) / f, ec),
             "--out ", req.out, " already holds a tokenizer (", f,
             "): give --overwrite to replace it, or another --out");
  }
  const std::string text = read_file(path);
  const auto t0 = std::chrono::steady_clock::now();
  const TrainedBpe bpe = train_bpe(text, req.vocab_size);
  const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  save_bpe(bpe, req.out);
  std::fprintf(out, "%s: learned %zu merges in %.2f s; vocabulary of %zu tokens -> %s\n",
               path.c_str(), bpe.merges.size(), s, bpe.tokens.size(), req.out.c_str());
}

}  // namespace scratchgpt
