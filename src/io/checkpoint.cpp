// checkpoint.cpp: see checkpoint.h.
#include "io/checkpoint.h"

#include <cmath>
#include <cstdio>
#include <filesystem>

#include "core/check.h"
#include "core/mapped_file.h"
#include "core/zip_reader.h"
#include "io/gpt2_read.h"

namespace scratchgpt {

namespace {

constexpr const char* kFormat = "scratchgpt.checkpoint";
constexpr const char* kFormatVersion = "1";

std::vector<int64_t> shape_of(const Tensor& t) {
  std::vector<int64_t> s;
  for (int i = 0; i < t.rank; ++i) s.push_back(t.shape[i]);
  return s;
}

// Loaded numbers must be finite: NaN or infinity would otherwise surface steps later as a loss
// blamed on --lr.
void require_finite(const Checkpoint& ck, const std::string& name, const float* x, int64_t n) {
  for (int64_t i = 0; i < n; ++i)
    SG_CHECK(std::isfinite(x[i]), "checkpoint ", ck.path, ": tensor '", name, "' holds ", x[i],
             " at element ", i, ": the run had diverged or the file is damaged; use an earlier "
             "checkpoint");
}

int64_t parse_int(const Checkpoint& ck, const std::string& key) {
  const std::string v = ck.st.meta(key);
  try {
    size_t used = 0;
    const long long x = std::stoll(v, &used);
    if (used == v.size()) return x;
  } catch (const std::exception&) {
  }
  fail("checkpoint ", ck.path, " has a bad '", key, "' entry ('", v,
       "'): it is damaged; use another checkpoint");
}

}  // namespace

namespace {
// What every checkpoint says of itself: format, config and tokenizer.
void describe(SafeTensors& st, const TrainConfig& cfg, const Tokenizer& tokenizer) {
  st.metadata["format"] = kFormat;
  st.metadata["format_version"] = kFormatVersion;
  st.metadata["config"] = cfg.to_json().dump();
  if (tokenizer.is_bpe())
    st.metadata["tokenizer"] = nlohmann::json{{"type", "bpe"},
                                              {"name", tokenizer.name()},
                                              {"encoder.json", tokenizer.encoder_json()},
                                              {"vocab.bpe", tokenizer.vocab_bpe()}}
                                   .dump();
  else
    st.metadata["vocab"] = tokenizer.chars().to_json();
}
}  // namespace

void save_checkpoint(const std::string& path, LanguageModel& model, const TrainConfig& cfg,
                     const Tokenizer& tokenizer, const TrainState& state) {
  SafeTensors st;
  for (const Param& p : model.params()) {
    const std::vector<int64_t> shape = shape_of(p.value);
    st.add_f32(p.name, shape, p.value.data);
    st.add_f32("optim.m." + p.name, shape, p.m.data);
    st.add_f32("optim.v." + p.name, shape, p.v.data);
  }
  st.add_u8("rng.batch", {static_cast<int64_t>(state.batch_rng.size())}, state.batch_rng.data());
  st.add_u8("rng.dropout", {static_cast<int64_t>(state.dropout_rng.size())},
            state.dropout_rng.data());
  st.add_f32("state.best_val_loss", {1}, &state.best_val_loss);
  if (!state.prefetch.empty())
    st.add_i32("state.prefetch", {static_cast<int64_t>(state.prefetch.size())},
               state.prefetch.data());
  describe(st, cfg, tokenizer);
  st.metadata["iter"] = std::to_string(state.iter);
  st.metadata["last_eval_iter"] = std::to_string(state.last_eval_iter);
  char buf[32];
  std::snprintf(buf, sizeof(buf), "%.6f", state.best_val_loss);
  st.metadata["best_val_loss"] = buf;
  save_safetensors(path, st);
}

void save_weights_checkpoint(const std::string& path, SafeTensors weights, const TrainConfig& cfg,
                             const Tokenizer& tokenizer, const UserOutput* user) {
  weights.metadata.clear();
  describe(weights, cfg, tokenizer);
  weights.metadata["contents"] = "weights";
  save_safetensors(path, weights, /*add_checksum=*/true, user);
}

namespace {

// nanoGPT's out/ckpt.pt (a zip: torch.save's): weights only, as import makes them.
bool is_nanogpt_ckpt(const std::string& path) {
  const MappedFile f(path);
  return is_zip(f.data(), f.size());
}

Checkpoint nanogpt_checkpoint(const std::string& path) {
  Gpt2Weights m = read_nanogpt(path, 0);
  Checkpoint ck;
  ck.path = path;
  ck.weights_only = true;
  ck.cfg.model = ModelKind::kGpt;
  ck.cfg.gpt = m.gpt;
  ck.cfg.preset = "";
  ck.tokenizer = nanogpt_tokenizer(path, m, "gpt2");
  check_vocab_fits(path, m.gpt.vocab_size, ck.tokenizer, "put nanoGPT's meta.pkl beside it");
  ck.st = std::move(m.weights);
  return ck;
}

}  // namespace

Checkpoint load_checkpoint(const std::string& path) {
  std::error_code ec;
  SG_CHECK(std::filesystem::exists(path, ec), "checkpoint not found: ", path,
           ": train one with 'scratchgpt train' or check the path");
  SG_CHECK(!std::filesystem::is_directory(path, ec), "checkpoint ", path,
           " is a directory: give a checkpoint file in it, e.g. ",
           (std::filesystem::path(path) / "best.safetensors").string());
  if (is_nanogpt_ckpt(path)) return nanogpt_checkpoint(path);
  SafeTensors st;
  try {
    st = load_safetensors(path);
  } catch (const Error& e) {
    fail("cannot load checkpoint: ", e.what(),
         " (use another checkpoint, e.g. best.safetensors or last.safetensors)");
  }
  return checkpoint_from(std::move(st), path);
}

Checkpoint checkpoint_from(SafeTensors st, const std::string& path) {
  Checkpoint ck;
  ck.path = path;
  ck.st = std::move(st);
  // Our checkpoints always carry their checksum: one without it is damaged or not ours, and is
  // not read unchecked.
  SG_CHECK(!ck.st.meta("checksum").empty(), "checkpoint ", path,
           " has no checksum: it is damaged or was not written by 'scratchgpt train'; use "
           "another checkpoint");
  SG_CHECK(ck.st.meta("format") == kFormat, "checkpoint ", path,
           " is not a scratchgpt training checkpoint (no format metadata)");
  SG_CHECK(ck.st.meta("format_version") == kFormatVersion, "checkpoint ", path,
           " has format version '", ck.st.meta("format_version"), "'; this build reads ",
           kFormatVersion);
  try {
    ck.cfg.apply_json(nlohmann::json::parse(ck.st.meta("config")));
    if (ck.cfg.model == ModelKind::kGpt) ck.cfg.gpt.validate();
    if (ck.st.metadata.count("tokenizer")) {
      const nlohmann::json t = nlohmann::json::parse(ck.st.meta("tokenizer"));
      SG_CHECK(t.at("type") == "bpe", "unknown tokenizer type ", t.at("type").dump());
      ck.tokenizer = Tokenizer::bpe(t.at("name").get<std::string>(),
                                    t.at("encoder.json").get<std::string>(),
                                    t.at("vocab.bpe").get<std::string>());
    } else {
      ck.tokenizer = CharTokenizer::from_json(ck.st.meta("vocab"));
    }
  } catch (const std::exception& e) {
    fail("checkpoint ", path, " holds a damaged config or vocabulary (", e.what(),
         "): use another checkpoint");
  }
  SG_CHECK(ck.cfg.gpt.vocab_size == ck.tokenizer.vocab_size() ||
               is_padded_vocab(ck.cfg.gpt.vocab_size, ck.tokenizer.vocab_size()),
           "checkpoint ", path, ": config vocab_size ", ck.cfg.gpt.vocab_size,
           " differs from its vocabulary (", ck.tokenizer.vocab_size(), ")");
  if (ck.st.meta("contents") == "weights") {  // no optimizer, generators or counters
    ck.weights_only = true;
    return ck;
  }
  ck.state.iter = parse_int(ck, "iter");
  ck.state.last_eval_iter = parse_int(ck, "last_eval_iter");
  SG_CHECK(ck.state.iter >= 0 && ck.state.last_eval_iter >= -1 &&
               ck.state.last_eval_iter <= ck.state.iter,
           "checkpoint ", path, " has impossible counters (iter ", ck.state.iter,
           ", last_eval_iter ", ck.state.last_eval_iter, "): it is damaged; use another checkpoint");
  ck.state.batch_rng = ck.st.u8("rng.batch");
  ck.state.dropout_rng = ck.st.u8("rng.dropout");
  const std::vector<float> best = ck.st.f32("state.best_val_loss");
  SG_CHECK(best.size() == 1, "checkpoint ", path, ": bad state.best_val_loss");
  ck.state.best_val_loss = best[0];
  if (ck.st.has("state.prefetch")) ck.state.prefetch = ck.st.i32("state.prefetch");
  return ck;
}

void restore_params(const Checkpoint& ck, LanguageModel& model, bool with_optimizer) {
  SG_CHECK(!with_optimizer || !ck.weights_only, "checkpoint ", ck.path,
           " holds weights only (imported or exported), no optimizer state to resume: start a "
           "run from it with 'train --init-from ", ck.path, "'");
  for (Param& p : model.params()) {
    SG_CHECK(ck.st.has(p.name), "checkpoint ", ck.path, " has no tensor '", p.name,
             "': it was made for a different model");
    SG_CHECK(ck.st.shape(p.name) == shape_of(p.value), "checkpoint ", ck.path, ": tensor '", p.name,
             "' has a different shape than the model's ", p.value.shape_str());
    ck.st.copy_f32(p.name, p.value.data, p.value.numel());
    require_finite(ck, p.name, p.value.data, p.value.numel());
    if (with_optimizer) {
      ck.st.copy_f32("optim.m." + p.name, p.m.data, p.m.numel());
      ck.st.copy_f32("optim.v." + p.name, p.v.data, p.v.numel());
      require_finite(ck, "optim.m." + p.name, p.m.data, p.m.numel());
      require_finite(ck, "optim.v." + p.name, p.v.data, p.v.numel());
    }
  }
}

}  // namespace scratchgpt
