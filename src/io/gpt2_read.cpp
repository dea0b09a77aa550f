// gpt2_read.cpp: see gpt2_read.h.
#include "io/gpt2_read.h"

#include <cmath>
#include <cstring>
#include <filesystem>
#include <limits>
#include <map>
#include <memory>
#include <nlohmann/json.hpp>
#include <set>

#include "core/check.h"
#include "core/mapped_file.h"
#include "data/file_io.h"
#include "data/token_file.h"
#include "core/zip_reader.h"
#include "io/gpt2_formats.h"
#include "io/nanogpt_ckpt.h"
#include "nn/gpt.h"
#include "train/train_config.h"

namespace scratchgpt {

namespace fs = std::filesystem;

namespace {

using Shape = std::vector<int64_t>;

std::string shape_str(const Shape& s) {
  std::string out = "(";
  for (size_t i = 0; i < s.size(); ++i) out += (i ? ", " : "") + std::to_string(s[i]);
  return out + ")";
}

// Our tensors from a safetensors file in another layout: where(ours) names each one there.
// Every key of the file must be used, or be one that ignorable(key) accepts.
using Views = std::map<std::string, MappedSafeTensors::View>;

template <typename Where, typename Ignorable>
SafeTensors gather(const Views& tensors, const std::string& path, const GPTConfig& g,
                   Where where, Ignorable ignorable) {
  SafeTensors out;
  std::set<std::string> used;
  for (const auto& [ours, shape] : gpt_param_shapes(g)) {
    const ForeignTensor f = where(ours);
    const auto it = tensors.find(f.name);
    SG_CHECK(it != tensors.end(), path, " has no tensor '", f.name, "' (", ours,
             "): the file is incomplete or not a GPT-2 of this config");
    const MappedSafeTensors::View& v = it->second;
    const Shape want = f.transposed ? Shape{shape[1], shape[0]} : shape;
    SG_CHECK(v.dtype == "F32", path, ": tensor '", f.name, "' is ", v.dtype,
             ", this build imports float32 weights: save the model in float32");
    SG_CHECK(v.shape == want, path, ": tensor '", f.name, "' has shape ", shape_str(v.shape),
             ", the config asks for ", shape_str(want), ": the file and its config disagree");
    StTensor t = f32_tensor(shape);
    if (f.transposed)
      transpose_f32(t.bytes.data(), v.data, shape[0], shape[1]);
    else
      std::memcpy(t.bytes.data(), v.data, t.bytes.size());
    out.tensors[ours] = std::move(t);
    used.insert(f.name);
  }
  for (const auto& [key, v] : tensors) {
    if (used.count(key) || ignorable(key, v)) continue;
    fail(path, " has a tensor scratchgpt does not know, '", key, "' ", shape_str(v.shape),
         ": it is not a GPT-2 of this layout (or its config says fewer layers)");
  }
  return out;
}

// A tied lm_head.weight stored beside wte must be the same numbers.
bool is_tied_copy(const MappedSafeTensors::View& v, const SafeTensors& weights) {
  const StTensor& wte = weights.tensors.at("wte");
  return v.dtype == "F32" && v.shape == wte.shape && v.bytes == wte.bytes.size() &&
         std::memcmp(v.data, wte.bytes.data(), wte.bytes.size()) == 0;
}

// The fields of an imported config (config.json, nanoGPT's model_args), read under the training
// config's rules (train_config.h): a whole number in int's range, a finite number, true/false, a
// string; anything else is one Error naming the file (source), the field and what it must be.
int json_int(const nlohmann::json& j, const std::string& key, const std::string& source) {
  SG_CHECK(j.contains(key), source, " has no '", key, "': give a GPT-2 config");
  return json_whole_number<int>(j[key], source + ": '" + key + "'");
}

double json_real(const nlohmann::json& j, const std::string& key, double fallback,
                 const std::string& source) {
  if (!j.contains(key)) return fallback;
  const nlohmann::json& v = j[key];
  SG_CHECK(v.is_number() && std::isfinite(v.get<double>()), source, ": '", key,
           "' has the wrong type: it must be a finite number, got ", v.dump());
  return v.get<double>();
}

bool json_bool(const nlohmann::json& j, const std::string& key, bool fallback,
               const std::string& source) {
  if (!j.contains(key)) return fallback;
  SG_CHECK(j[key].is_boolean(), source, ": '", key,
           "' has the wrong type: it must be true or false, got ", j[key].dump());
  return j[key].get<bool>();
}

std::string json_text(const nlohmann::json& j, const std::string& key, const std::string& fallback,
                      const std::string& source) {
  if (!j.contains(key)) return fallback;
  SG_CHECK(j[key].is_string(), source, ": '", key,
           "' has the wrong type: it must be a string, got ", j[key].dump());
  return j[key].get<std::string>();
}

// source names the file the numbers came from in an impossible combination's Error.
GPTConfig gpt2_config(int V, int T, int L, int NH, int C, bool bias, bool tied, Activation act,
                      const std::string& source) {
  GPTConfig g;
  g.vocab_size = V, g.block_size = T, g.n_layer = L, g.n_head = NH, g.n_embd = C;
  g.dropout = 0.0f, g.bias = bias, g.tied = tied, g.activation = act;
  try {
    g.validate();
  } catch (const Error& e) {
    fail(source, ": ", e.what());
  }
  return g;
}

}  // namespace

Gpt2Weights read_hf(const std::string& input) {
  const fs::path in(input);
  std::error_code ec;
  const fs::path dir = fs::is_directory(in, ec) ? in : in.parent_path();
  const std::string model = fs::is_directory(in, ec) ? (in / "model.safetensors").string() : input;
  const std::string config_path = (dir / "config.json").string();
  SG_CHECK(fs::exists(config_path, ec), "no config.json beside ", model,
           ": a Hugging Face model directory holds config.json and model.safetensors");
  SG_CHECK(fs::exists(model, ec), "no model.safetensors in ", dir.string(),
           ": download it with the model (PyTorch's pytorch_model.bin is not read)");
  nlohmann::json j;
  try {
    j = nlohmann::json::parse(read_file(config_path));
  } catch (const nlohmann::json::exception& e) {
    fail(config_path, " is not valid JSON (", e.what(), ")");
  }
  SG_CHECK(j.is_object(), config_path, " must be a JSON object");
  if (j.contains("model_type"))
    SG_CHECK(j["model_type"] == "gpt2", config_path, " is a ", j["model_type"].dump(),
             " model, not gpt2: scratchgpt imports GPT-2's architecture only");
  const double eps = json_real(j, "layer_norm_epsilon", 1e-5, config_path);
  SG_CHECK(std::abs(eps - 1e-5) < 1e-12, config_path, " has layer_norm_epsilon ", eps,
           ": scratchgpt's LayerNorm uses GPT-2's 1e-5");
  const int T = j.contains("n_positions") ? json_int(j, "n_positions", config_path)
                                          : json_int(j, "n_ctx", config_path);
  const bool tied = json_bool(j, "tie_word_embeddings", true, config_path);
  const std::string act = json_text(j, "activation_function", "gelu_new", config_path);
  Activation activation = Activation::kGelu;
  try {
    activation = activation_from_hf(act);
  } catch (const Error& e) {
    fail(config_path, ": ", e.what());
  }
  const GPTConfig g =
      gpt2_config(json_int(j, "vocab_size", config_path), T, json_int(j, "n_layer", config_path),
                  json_int(j, "n_head", config_path), json_int(j, "n_embd", config_path),
                  /*bias=*/true, tied, activation, config_path);

  const MappedSafeTensors file(model);
  const std::string prefix = file.tensors.count("transformer.wte.weight") ? "transformer." : "";
  Gpt2Weights r{g, {}, {}};
  r.weights = gather(
      file.tensors, model, g, [&](const std::string& ours) { return hf_tensor(ours, prefix); },
      [&](const std::string& key, const MappedSafeTensors::View&) {
        // The causal-mask buffers older transformers saved; a tied head's copy of wte (checked
        // below).
        if (key.rfind(prefix + "h.", 0) == 0 &&
            (key.ends_with(".attn.bias") || key.ends_with(".attn.masked_bias")))
          return true;
        return tied && key == "lm_head.weight";
      });
  if (tied && file.tensors.count("lm_head.weight"))
    SG_CHECK(is_tied_copy(file.tensors.at("lm_head.weight"), r.weights), model,
             ": lm_head.weight differs from wte.weight though config.json ties them "
             "(tie_word_embeddings): set tie_word_embeddings to false for an untied head");
  return r;
}

namespace {

// A nanoGPT state_dict, from safetensors or from train.py's ckpt.pt, under nanoGPT's own keys:
// a compile=True run's "_orig_mod." stripped (as sample.py does), a head saved without wte
// (safetensors' save_model keeps one of two tied tensors) taken as wte.
struct NanoGptFile {
  std::unique_ptr<MappedSafeTensors> mapped;
  TorchStateDict ckpt;
  Views tensors;
  nlohmann::json model_args;  // null when the file has none
};

// Other tools' files given as nanoGPT's are named, not called damaged safetensors.
void check_not_other_format(const std::string& input, const uint8_t* head, size_t n) {
  int32_t magic = 0;
  if (n >= 4) std::memcpy(&magic, head, 4);
  SG_CHECK(magic != kLlmcModelMagic, input, " is llm.c's model file (magic ", kLlmcModelMagic,
           "), not nanoGPT's: import it with --format llmc");
  SG_CHECK(magic != 20240520, input, " is an llm.c token shard (magic 20240520), not a model: "
           "it goes to 'train --data-dir'");
  SG_CHECK(!(n >= 2 && head[0] == 0x80 && head[1] <= 5), input, " is a bare pickle, not nanoGPT's "
           "ckpt.pt (torch.save's zip archive): re-save it with torch.save in PyTorch 1.6 or later");
}

NanoGptFile open_nanogpt(const std::string& input) {
  NanoGptFile f;
  {
    const MappedFile probe(input);
    check_not_other_format(input, probe.data(), probe.size());
    if (is_zip(probe.data(), probe.size())) f.ckpt = parse_nanogpt_ckpt(probe.data(), probe.size(), input);
  }
  Views raw;
  if (!f.ckpt.tensors.tensors.empty()) {
    for (const auto& [k, t] : f.ckpt.tensors.tensors)
      raw[k] = {t.dtype, t.shape, t.bytes.data(), 0, t.bytes.size()};
    if (!f.ckpt.model_args.empty()) f.model_args = f.ckpt.model_args;
  } else {
    f.mapped = std::make_unique<MappedSafeTensors>(input);
    raw = f.mapped->tensors;
    const auto meta = f.mapped->metadata.find("model_args");
    if (meta != f.mapped->metadata.end()) {
      f.model_args = nlohmann::json::parse(meta->second, nullptr, false);
      SG_CHECK(f.model_args.is_object(), input, ": its model_args metadata is not a JSON object");
    }
  }
  const std::string prefix = "_orig_mod.";
  for (auto& [k, v] : raw) f.tensors[k.starts_with(prefix) ? k.substr(prefix.size()) : k] = v;
  if (!f.tensors.count("transformer.wte.weight") && f.tensors.count("lm_head.weight"))
    f.tensors["transformer.wte.weight"] = f.tensors.at("lm_head.weight");
  return f;
}

}  // namespace

Gpt2Weights read_nanogpt(const std::string& input, int n_head) {
  const NanoGptFile file = open_nanogpt(input);
  int V = 0, T = 0, L = 0, C = 0, NH = n_head;
  bool bias = file.tensors.count("transformer.h.0.ln_1.bias") != 0;
  const bool has_args = !file.model_args.is_null();
  if (has_args) {
    const nlohmann::json& m = file.model_args;
    const std::string source = input + "'s model_args";
    V = json_int(m, "vocab_size", source);
    T = json_int(m, "block_size", source);
    L = json_int(m, "n_layer", source);
    C = json_int(m, "n_embd", source);
    if (NH == 0) NH = json_int(m, "n_head", source);
    bias = json_bool(m, "bias", bias, source);
  } else {  // the shapes say all but the head count
    const auto wte = file.tensors.find("transformer.wte.weight");
    const auto wpe = file.tensors.find("transformer.wpe.weight");
    SG_CHECK(wte != file.tensors.end() && wpe != file.tensors.end() && wte->second.shape.size() == 2 &&
                 wpe->second.shape.size() == 2,
             input, " has no 2-dimensional transformer.wte.weight (or lm_head.weight, which "
             "nanoGPT ties to it) and transformer.wpe.weight: not a nanoGPT state_dict");
    const int64_t kMax = std::numeric_limits<int>::max();
    SG_CHECK(wte->second.shape[0] <= kMax && wte->second.shape[1] <= kMax &&
                 wpe->second.shape[0] <= kMax,
             input, ": transformer.wte.weight or transformer.wpe.weight is larger than ", kMax,
             " in a dimension: not a GPT-2 this build can hold");
    V = static_cast<int>(wte->second.shape[0]), C = static_cast<int>(wte->second.shape[1]);
    T = static_cast<int>(wpe->second.shape[0]);
    while (file.tensors.count("transformer.h." + std::to_string(L) + ".ln_1.weight")) ++L;
    SG_CHECK(NH > 0, input, " has no model_args, and the head count is not in the "
             "shapes: pass --n-head");
  }
  const GPTConfig g = gpt2_config(V, T, L, NH, C, bias, /*tied=*/true, Activation::kGeluExact,
                                  has_args ? input + "'s model_args" : input);
  Gpt2Weights r{g, {}, {}};
  if (file.ckpt.config.contains("dataset") && file.ckpt.config["dataset"].is_string())
    r.dataset = file.ckpt.config["dataset"].get<std::string>();
  r.weights = gather(file.tensors, input, g, nanogpt_tensor,
                     [&](const std::string& key, const MappedSafeTensors::View& v) {
                       // PyTorch < 2's mask buffers; the head, which nanoGPT ties to wte.
                       if (key.ends_with(".attn.bias") && v.shape.size() == 4) return true;
                       return key == "lm_head.weight";
                     });
  if (file.tensors.count("lm_head.weight"))
    SG_CHECK(is_tied_copy(file.tensors.at("lm_head.weight"), r.weights), input,
             ": lm_head.weight differs from transformer.wte.weight, but nanoGPT's GPT ties them");
  return r;
}

namespace {

CharTokenizer meta_pkl_tokenizer(const std::string& path) {
  const MappedFile f(path);
  return CharTokenizer::from_meta_pkl(f.data(), f.size(), path);
}

}  // namespace

Tokenizer nanogpt_tokenizer(const std::string& input, const Gpt2Weights& m,
                            const std::string& tokenizer) {
  std::error_code ec;
  if (tokenizer.ends_with(".pkl")) return meta_pkl_tokenizer(tokenizer);
  if (fs::exists(fs::path(tokenizer) / "meta.pkl", ec))
    return meta_pkl_tokenizer((fs::path(tokenizer) / "meta.pkl").string());
  if (tokenizer == "gpt2" && m.gpt.vocab_size < kGpt2VocabSize) {  // not GPT-2's, nor padded
    const fs::path beside = fs::path(input).parent_path() / "meta.pkl";
    if (fs::exists(beside, ec)) return meta_pkl_tokenizer(beside.string());
    const fs::path data = fs::path("data") / m.dataset / "meta.pkl";
    if (!m.dataset.empty() && fs::exists(data, ec)) return meta_pkl_tokenizer(data.string());
  }
  return Tokenizer::bpe(tokenizer);
}

void check_vocab_fits(const std::string& input, int model_vocab, const Tokenizer& tokenizer,
                      const std::string& fix) {
  SG_CHECK(model_vocab == tokenizer.vocab_size() ||
               is_padded_vocab(model_vocab, tokenizer.vocab_size()),
           input, " is a model of ", model_vocab, " tokens, but its tokenizer ",
           tokenizer.describe(), " has ", tokenizer.vocab_size(), ": ", fix);
}

GPTConfig parse_llmc_model(const uint8_t* data, size_t size, const std::string& input,
                           SafeTensors& weights) {
  SG_CHECK(size >= 1024, input, " is shorter than llm.c's 1024-byte header: truncated, or "
           "not an llm.c model file");
  int32_t h[8];
  std::memcpy(h, data, sizeof h);
  SG_CHECK(h[0] == kLlmcModelMagic, input, " has magic ", h[0], ", not llm.c's model file magic ",
           kLlmcModelMagic, " (token shards, magic 20240520, go to 'train --data-dir')");
  SG_CHECK(h[1] == 3 || h[1] == 5, input, " has llm.c version ", h[1],
           ": this build reads version 3 (float32) and 5 (bfloat16)");
  const size_t es = h[1] == 3 ? 4 : 2;
  const int T = h[2], V = h[3], L = h[4], NH = h[5], C = h[6], Vp = h[7];
  SG_CHECK(T > 0 && V > 0 && L > 0 && NH > 0 && C > 0 && Vp >= V && Vp < (1 << 26) &&
               C < (1 << 16) && L < 4096 && T < (1 << 20),
           input, " has an impossible header (max_seq_len ", T, ", vocab ", V, ", padded ", Vp,
           ", layers ", L, ", heads ", NH, ", channels ", C, "): it is damaged");
  const GPTConfig g =
      gpt2_config(V, T, L, NH, C, /*bias=*/true, /*tied=*/true, Activation::kGelu, input);
  std::map<std::string, Shape> shapes;
  for (const auto& [name, shape] : gpt_param_shapes(g)) shapes[name] = shape;
  // The bytes each tensor takes in the file, in its order.
  uint64_t total = 0;
  const std::vector<std::string> order = llmc_order(L);
  for (const std::string& name : order) {
    const Shape& s = shapes.at(name);
    uint64_t n = 1;
    for (int64_t d : s) n *= static_cast<uint64_t>(d);
    if (name == "wte") n = static_cast<uint64_t>(Vp) * static_cast<uint64_t>(C);
    total += n;
  }
  SG_CHECK(size == 1024 + total * es, input, " holds ", size,
           " bytes, but its header's model needs ", 1024 + total * es,
           ": it is truncated or damaged");
  const uint8_t* p = data + 1024;
  for (const std::string& name : order) {
    StTensor t = f32_tensor(shapes.at(name));
    const int64_t n = t.numel();
    if (es == 4) {
      std::memcpy(t.bytes.data(), p, static_cast<size_t>(n) * 4);
    } else {  // bfloat16: the high half of a float32
      for (int64_t i = 0; i < n; ++i) {
        uint16_t b;
        std::memcpy(&b, p + i * 2, 2);
        const uint32_t bits = static_cast<uint32_t>(b) << 16;
        std::memcpy(t.bytes.data() + i * 4, &bits, 4);
      }
    }
    const int64_t stored = name == "wte" ? int64_t{Vp} * C : n;  // the padded rows are skipped
    p += static_cast<size_t>(stored) * es;
    weights.tensors[name] = std::move(t);
  }
  return g;
}

Gpt2Weights read_llmc(const std::string& input) {
  const MappedFile file(input);
  Gpt2Weights r{{}, {}, {}};
  r.gpt = parse_llmc_model(file.data(), file.size(), input, r.weights);
  return r;
}

}  // namespace scratchgpt
