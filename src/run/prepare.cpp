// prepare.cpp: see prepare.h.
#include "run/prepare.h"

#include <filesystem>

#include "data/prepare.h"
#include "data/token_file.h"

namespace scratchgpt {

void run_prepare(const PrepareRequest& req, std::FILE* out) {
  const TokenFormat format = token_format_from_name(req.format);
  const std::string input = req.input.empty() ? default_dataset_path() : req.input;
  const std::string out_dir =
      req.out_dir.empty()
          ? (std::filesystem::path("out") / "data" / std::filesystem::path(input).stem()).string()
          : req.out_dir;
  const PrepareResult r = prepare_dataset(input, out_dir, req.tokenizer, format, req.overwrite);
  std::fprintf(out,
               "%s: %lld characters, vocabulary of %d (%s), %lld train and %lld val tokens "
               "(%s format) -> %s\n",
               input.c_str(), static_cast<long long>(r.num_chars), r.vocab_size,
               req.tokenizer.c_str(), static_cast<long long>(r.train_tokens),
               static_cast<long long>(r.val_tokens), req.format.c_str(), out_dir.c_str());
}

}  // namespace scratchgpt
