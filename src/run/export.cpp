// export.cpp: see export.h.
#include "run/export.h"

#include <cstring>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <optional>

#include "core/atomic_file.h"
#include "core/check.h"
#include "core/safetensors.h"
#include "nn/gpt.h"
#include "run/gpt2_formats.h"
#include "train/checkpoint.h"

namespace scratchgpt {

namespace fs = std::filesystem;

namespace {

using Shape = std::vector<int64_t>;

// Our tensor by name, or zeros of the shape a bias has where the model has none.
StTensor ours_or_zero_bias(const Checkpoint& ck, const std::string& name, const Shape& shape) {
  if (ck.st.has(name)) return ck.st.get(name);
  StTensor t;
  t.dtype = "F32";
  t.shape = shape;
  t.bytes.assign(static_cast<size_t>(t.numel()) * 4, 0);
  return t;
}

StTensor transposed(const StTensor& t) {
  StTensor out;
  out.dtype = t.dtype;
  out.shape = {t.shape[1], t.shape[0]};
  out.bytes.resize(t.bytes.size());
  const int64_t rows = t.shape[0], cols = t.shape[1];
  for (int64_t r = 0; r < rows; ++r)
    for (int64_t c = 0; c < cols; ++c)
      std::memcpy(out.bytes.data() + (c * rows + r) * 4, t.bytes.data() + (r * cols + c) * 4, 4);
  return out;
}

// The model's tensors with biases filled in: what a GPT-2 with biases holds.
std::vector<std::pair<std::string, StTensor>> with_biases(const Checkpoint& ck) {
  GPTConfig g = ck.cfg.gpt;
  g.bias = true;
  std::vector<std::pair<std::string, StTensor>> out;
  for (const auto& [name, shape] : gpt_param_shapes(g))
    out.emplace_back(name, ours_or_zero_bias(ck, name, shape));
  return out;
}

// The files export_hf writes: an earlier export holding only these may be replaced (--overwrite).
const std::vector<std::string> kHfFiles = {"config.json", "model.safetensors", "vocab.json",
                                           "merges.txt"};

// All or nothing: the files go to a temporary directory that replaces dir when complete.
void export_hf(const Checkpoint& ck, AtomicDir& dir) {
  const GPTConfig& g = ck.cfg.gpt;
  SafeTensors st;
  for (auto& [name, t] : with_biases(ck)) {
    const ForeignTensor f = hf_tensor(name, "transformer.");
    st.tensors[f.name] = f.transposed ? transposed(t) : std::move(t);
  }
  st.metadata["format"] = "pt";
  nlohmann::json c = {
      {"architectures", {"GPT2LMHeadModel"}}, {"model_type", "gpt2"},
      {"activation_function", hf_activation_name(g.activation)},
      {"n_embd", g.n_embd}, {"n_head", g.n_head}, {"n_layer", g.n_layer},
      {"n_positions", g.block_size}, {"n_ctx", g.block_size}, {"vocab_size", g.vocab_size},
      {"layer_norm_epsilon", 1e-5}, {"tie_word_embeddings", g.tied},
      {"attn_pdrop", 0.0}, {"embd_pdrop", 0.0}, {"resid_pdrop", 0.0},
      {"initializer_range", 0.02}};
  if (ck.tokenizer.is_bpe() && ck.tokenizer.bpe().eot_id() >= 0)
    c["bos_token_id"] = c["eos_token_id"] = ck.tokenizer.bpe().eot_id();
  save_safetensors(dir.file("model.safetensors"), st, /*add_checksum=*/false);
  write_file_atomic(dir.file("config.json"), c.dump(2) + "\n");
  if (ck.tokenizer.is_bpe()) {  // GPT-2's two files under the names transformers reads
    write_file_atomic(dir.file("vocab.json"), ck.tokenizer.encoder_json());
    write_file_atomic(dir.file("merges.txt"), ck.tokenizer.vocab_bpe());
  }
  dir.commit();
}

void export_nanogpt(const Checkpoint& ck, const std::string& path, const UserOutput& rule,
                    std::FILE* out) {
  const GPTConfig& g = ck.cfg.gpt;
  SG_CHECK(g.tied, "nanoGPT's GPT ties lm_head to wte, and ", ck.path,
           " has its own head: export it with --format hf or scratchgpt");
  SG_CHECK(g.activation != Activation::kRelu, "nanoGPT's MLP is a GELU, and ", ck.path,
           " has a ReLU MLP: export it with --format hf or scratchgpt");
  if (g.activation == Activation::kGelu)
    std::fprintf(out, "note: %s uses GPT-2's tanh GELU; nanoGPT's MLP computes the exact GELU "
                 "(as nanoGPT does with OpenAI's GPT-2: close, not equal)\n", ck.path.c_str());
  SafeTensors st;
  for (const auto& [name, shape] : gpt_param_shapes(g))
    st.tensors[nanogpt_tensor(name).name] = ck.st.get(name);
  st.tensors["lm_head.weight"] = ck.st.get("wte");  // the tied head, as its state_dict has it
  st.metadata["model_args"] = nlohmann::json{{"n_layer", g.n_layer}, {"n_head", g.n_head},
                                             {"n_embd", g.n_embd}, {"block_size", g.block_size},
                                             {"bias", g.bias}, {"vocab_size", g.vocab_size},
                                             {"dropout", 0.0}}
                                  .dump();
  save_safetensors(path, st, /*add_checksum=*/false, &rule);
}

void export_llmc(const Checkpoint& ck, const std::string& path, const UserOutput& rule) {
  const GPTConfig& g = ck.cfg.gpt;
  SG_CHECK(g.tied, "llm.c's GPT-2 ties its head to wte, and ", ck.path,
           " has its own head: export it with --format hf or scratchgpt");
  SG_CHECK(g.activation == Activation::kGelu, "llm.c's MLP is GPT-2's tanh GELU, and ", ck.path,
           " uses ", enum_name<Activation>(kActivationNames, g.activation),
           ": export it with --format hf or scratchgpt");
  const int Vp = llmc_padded_vocab(g.vocab_size);
  int32_t header[256] = {kLlmcModelMagic, 3, g.block_size, g.vocab_size, g.n_layer, g.n_head,
                         g.n_embd, Vp};
  std::map<std::string, StTensor> all;
  for (auto& [name, t] : with_biases(ck)) all[name] = std::move(t);
  AtomicFile f(path, &rule);
  f.write(header, sizeof header);
  for (const std::string& name : llmc_order(g.n_layer)) {
    const StTensor& t = all.at(name);
    f.write(t.bytes.data(), t.bytes.size());
    if (name == "wte") {  // llm.c's padding rows, zero
      const std::vector<uint8_t> pad(static_cast<size_t>(Vp - g.vocab_size) * g.n_embd * 4, 0);
      f.write(pad.data(), pad.size());
    }
  }
  f.commit();
}

}  // namespace

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
    hf_dir.emplace(req.out, rule, kHfFiles);
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
    case WeightFormat::kHf: export_hf(ck, *hf_dir); break;
    case WeightFormat::kNanoGpt: export_nanogpt(ck, req.out, rule, out); break;
    case WeightFormat::kLlmc: export_llmc(ck, req.out, rule); break;
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
