// import.cpp: see import.h.
#include "run/import.h"

#include <cmath>
#include <cstring>
#include <filesystem>

#include "core/atomic_file.h"
#include "core/check.h"
#include "io/checkpoint.h"
#include "io/gpt2_formats.h"
#include "io/gpt2_read.h"
#include "run/model_factory.h"
#include "tokenizer/tokenizer.h"
#include "train/train_config.h"

namespace scratchgpt {

namespace fs = std::filesystem;

void run_import(const ImportRequest& req, std::FILE* out) {
  const WeightFormat format = weight_format_from_name(req.format);
  SG_CHECK(format != WeightFormat::kScratchgpt,
           "--format scratchgpt: a scratchgpt checkpoint needs no import; use it as it is");
  SG_CHECK(!req.input.empty(), "--input is required: the model file or directory to import");
  SG_CHECK(!req.out.empty(), "--out is required: the checkpoint file to write");
  std::error_code ec;
  SG_CHECK(fs::exists(req.input, ec), "--input ", req.input, " does not exist");
  SG_CHECK(!fs::is_directory(req.out, ec), "--out ", req.out,
           " is a directory: give a file name, e.g. ", (fs::path(req.out) / "gpt2.safetensors").string());
  SG_CHECK(req.n_head >= 0, "--n-head must be positive, got ", req.n_head);
  // The output rule (core/atomic_file.h) before any reading; never one of the inputs itself.
  const UserOutput rule{"--out", req.overwrite};
  check_not_input(req.out, rule, req.input, "--input");
  if (format == WeightFormat::kHf && fs::is_directory(req.input, ec))
    for (const char* name : {"model.safetensors", "config.json"})
      check_not_input(req.out, rule, (fs::path(req.input) / name).string(), "--input");
  check_output(req.out, rule);
  Gpt2Weights m = format == WeightFormat::kHf        ? read_hf(req.input)
                  : format == WeightFormat::kNanoGpt ? read_nanogpt(req.input, req.n_head)
                                                     : read_llmc(req.input);
  const Tokenizer tokenizer = format == WeightFormat::kNanoGpt
                                  ? nanogpt_tokenizer(req.input, m, req.tokenizer)
                                  : Tokenizer::bpe(req.tokenizer);
  check_vocab_fits(req.input, m.gpt.vocab_size, tokenizer, "pass the model's own --tokenizer DIR");
  for (const auto& [name, t] : m.weights.tensors) {
    const auto* x = reinterpret_cast<const uint8_t*>(t.bytes.data());
    for (size_t i = 0; i < t.bytes.size(); i += 4) {
      float v;
      std::memcpy(&v, x + i, 4);
      SG_CHECK(std::isfinite(v), req.input, ": tensor ", name, " holds ", v, " at element ", i / 4,
               ": the file is damaged");
    }
  }
  TrainConfig cfg;
  cfg.model = ModelKind::kGpt;
  cfg.gpt = m.gpt;
  cfg.preset = "";
  const double params = param_count(cfg);
  save_weights_checkpoint(req.out, std::move(m.weights), cfg, tokenizer, &rule);
  std::fprintf(out, "imported %s (%s): %d layers, %d heads, %d wide, context %d, %d tokens, "
               "%.1fM parameters -> %s\n",
               req.input.c_str(), req.format.c_str(), m.gpt.n_layer, m.gpt.n_head, m.gpt.n_embd,
               m.gpt.block_size, m.gpt.vocab_size, params / 1e6, req.out.c_str());
}

}  // namespace scratchgpt
