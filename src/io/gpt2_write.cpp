// gpt2_write.cpp: see gpt2_write.h.
#include "io/gpt2_write.h"

#include <map>
#include <nlohmann/json.hpp>

#include "core/check.h"
#include "io/gpt2_formats.h"
#include "nn/gpt.h"

namespace scratchgpt {

namespace {

using Shape = std::vector<int64_t>;

// Our tensor by name, or zeros of the shape a bias has where the model has none.
StTensor ours_or_zero_bias(const Checkpoint& ck, const std::string& name, const Shape& shape) {
  return ck.st.has(name) ? ck.st.get(name) : f32_tensor(shape);
}

// t (rows, cols) as (cols, rows): Hugging Face's Conv1D layout.
StTensor transposed(const StTensor& t) {
  StTensor out = f32_tensor({t.shape[1], t.shape[0]});
  transpose_f32(out.bytes.data(), t.bytes.data(), t.shape[1], t.shape[0]);
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

}  // namespace

const std::vector<std::string>& hf_file_names() {
  static const std::vector<std::string> names = {"config.json", "model.safetensors", "vocab.json",
                                                 "merges.txt"};
  return names;
}

void write_hf(const Checkpoint& ck, AtomicDir& dir) {
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
  // GPT-2's <|endoftext|> where the vocabulary has it; a character vocabulary has no such token,
  // so none is named (transformers' default, 50256, lies outside it).
  if (ck.tokenizer.is_bpe() && ck.tokenizer.bpe().eot_id() >= 0)
    c["bos_token_id"] = c["eos_token_id"] = ck.tokenizer.bpe().eot_id();
  else
    c["bos_token_id"] = c["eos_token_id"] = nullptr;
  save_safetensors(dir.file("model.safetensors"), st, /*add_checksum=*/false);
  write_file_atomic(dir.file("config.json"), c.dump(2) + "\n");
  if (ck.tokenizer.is_bpe()) {  // GPT-2's two files under the names transformers reads
    write_file_atomic(dir.file("vocab.json"), ck.tokenizer.encoder_json());
    write_file_atomic(dir.file("merges.txt"), ck.tokenizer.vocab_bpe());
  }
  dir.commit();
}

void write_nanogpt(const Checkpoint& ck, const std::string& path, const UserOutput& rule,
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
  // The causal-mask buffers nanoGPT registers under PyTorch < 2 (no scaled_dot_product_attention):
  // torch.tril(torch.ones(T, T)).view(1, 1, T, T), so load_state_dict(strict=True) finds them.
  const int64_t T = g.block_size;
  std::vector<float> mask(static_cast<size_t>(T * T), 0.0f);
  for (int64_t i = 0; i < T; ++i)
    for (int64_t j = 0; j <= i; ++j) mask[static_cast<size_t>(i * T + j)] = 1.0f;
  for (int l = 0; l < g.n_layer; ++l)
    st.add_f32("transformer.h." + std::to_string(l) + ".attn.bias", {1, 1, T, T}, mask.data());
  st.metadata["model_args"] = nlohmann::json{{"n_layer", g.n_layer}, {"n_head", g.n_head},
                                             {"n_embd", g.n_embd}, {"block_size", g.block_size},
                                             {"bias", g.bias}, {"vocab_size", g.vocab_size},
                                             {"dropout", 0.0}}
                                  .dump();
  save_safetensors(path, st, /*add_checksum=*/false, &rule);
}

void write_llmc(const Checkpoint& ck, const std::string& path, const UserOutput& rule) {
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

}  // namespace scratchgpt
