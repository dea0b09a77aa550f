// export.cpp: see export.h.
#include "run/export.h"

#include <cmath>
#include <filesystem>
#include <optional>

#include "core/atomic_file.h"
#include "core/check.h"
#include "core/safetensors.h"
#include "io/checkpoint.h"
#include "io/gpt2_formats.h"
#include "io/gpt2_write.h"
#include "nn/gpt.h"

namespace scratchgpt {

namespace fs = std::filesystem;

void run_export(const ExportRequest& req, std::FILE* out) {
  const WeightFormat format = weight_format_from_name(req.format);
  SG_CHECK(!req.checkpoint.empty(), "--checkpoint is required: the scratchgpt checkpoint to export");
  SG_CHECK(!req.out.empty(), "--out is required: where to write");
  std::error_code ec;
  SG_CHECK(format == WeightFormat::kHf || !fs::is_directory(req.out, ec), "--out ", req.out,
           " is a directory: --format ", req.format, " writes one file; give its name");
  // The output rule (core/atomic_file.h) before the checkpoint is read; never the input itself.
  const UserOutput rule{"--out", req.overwrite};
  check_not_input(req.out, rule, req.checkpoint, "--checkpoint");
  std::optional<AtomicDir> hf_dir;
  if (format == WeightFormat::kHf)
    hf_dir.emplace(req.out, rule, hf_file_names());
  else
    check_output(req.out, rule);
  const Checkpoint ck = load_checkpoint(req.checkpoint);
  SG_CHECK(ck.cfg.model == ModelKind::kGpt, ck.path,
           " holds a bigram model; export writes GPT-2-shaped models only");
  // Every tensor finite and of the model's shape before anything is written.
  for (const auto& [name, shape] : gpt_param_shapes(ck.cfg.gpt)) {
    SG_CHECK(ck.st.has(name) && ck.st.shape(name) == shape && ck.st.get(name).dtype == "F32",
             ck.path, ": tensor '", name, "' is missing or misshapen: the checkpoint is damaged");
    for (float v : ck.st.f32(name))
      SG_CHECK(std::isfinite(v), ck.path, ": tensor '", name, "' is not finite");
  }
  switch (format) {
    case WeightFormat::kHf: write_hf(ck, *hf_dir); break;
    case WeightFormat::kNanoGpt: write_nanogpt(ck, req.out, rule, out); break;
    case WeightFormat::kLlmc: write_llmc(ck, req.out, rule); break;
    case WeightFormat::kScratchgpt: {
      SafeTensors weights;
      for (const auto& [name, shape] : gpt_param_shapes(ck.cfg.gpt))
        weights.tensors[name] = ck.st.get(name);
      save_weights_checkpoint(req.out, std::move(weights), ck.cfg, ck.tokenizer, &rule);
      break;
    }
  }
  std::fprintf(out, "exported %s (%d layers, %d heads, %d wide, %d tokens) as %s -> %s\n",
               req.checkpoint.c_str(), ck.cfg.gpt.n_layer, ck.cfg.gpt.n_head, ck.cfg.gpt.n_embd,
               ck.cfg.gpt.vocab_size, req.format.c_str(), req.out.c_str());
}

}  // namespace scratchgpt
