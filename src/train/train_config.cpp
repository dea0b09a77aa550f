// train_config.cpp: see train_config.h.
#include "train/train_config.h"

#include <cmath>
#include <limits>
#include <type_traits>

#include "core/check.h"
#include "kernels/cpu/matmul_backend.h"

namespace scratchgpt {

using nlohmann::json;

std::vector<std::string> preset_names() {
  return {"bigram", "shakespeare-char", "shakespeare-char-small"};
}

TrainConfig preset_config(const std::string& name) {
  TrainConfig c;
  c.preset = name;
  if (name == "bigram") {
    // The lecture's bigram.py: AdamW with torch's defaults, constant lr 1e-2.
    c.model = "bigram";
    c.gpt.block_size = 8;
    c.batch_size = 32;
    c.max_iters = 3000;
    c.lr = 1e-2;
    c.min_lr = 1e-2;
    c.decay_lr = false;
    c.warmup_iters = 0;
    c.lr_decay_iters = 3000;
    c.weight_decay = 0.01f;
    c.beta1 = 0.9f, c.beta2 = 0.999f;
    c.grad_clip = 0.0f;
    c.eval_interval = 300;
    c.eval_iters = 200;
    c.log_interval = 100;
  } else if (name == "shakespeare-char") {
    // nanoGPT config/train_shakespeare_char.py.
    c.gpt.n_layer = 6, c.gpt.n_head = 6, c.gpt.n_embd = 384, c.gpt.block_size = 256;
    c.gpt.dropout = 0.2f;
    c.gpt.bias = false, c.gpt.tied = true, c.gpt.activation = "gelu";
    c.batch_size = 64;
    c.max_iters = 5000, c.lr_decay_iters = 5000, c.warmup_iters = 100;
    c.lr = 1e-3, c.min_lr = 1e-4;
    c.beta2 = 0.99f;
    c.eval_interval = 250, c.eval_iters = 200;
    c.rng_stream = "nanogpt";
  } else if (name == "shakespeare-char-small") {
    // nanoGPT's CPU recipe for the same data (README "I only have a macbook").
    c.gpt.n_layer = 4, c.gpt.n_head = 4, c.gpt.n_embd = 128, c.gpt.block_size = 64;
    c.gpt.dropout = 0.0f;
    c.gpt.bias = false, c.gpt.tied = true, c.gpt.activation = "gelu";
    c.batch_size = 12;
    c.max_iters = 2000, c.lr_decay_iters = 2000, c.warmup_iters = 100;
    c.lr = 1e-3, c.min_lr = 1e-4;
    c.beta2 = 0.99f;
    c.eval_interval = 250, c.eval_iters = 20;
    c.rng_stream = "nanogpt";  // seed 1337 then draws nanoGPT's init, batches and eval batches
  } else {
    std::string names;
    for (const auto& n : preset_names()) names += (names.empty() ? "" : ", ") + n;
    fail("unknown preset '", name, "': choose one of ", names);
  }
  return c;
}

json TrainConfig::to_json() const {
  json j;
  j["preset"] = preset;
  j["model"] = model;
  j["vocab_size"] = gpt.vocab_size;
  j["n_layer"] = gpt.n_layer;
  j["n_head"] = gpt.n_head;
  j["n_embd"] = gpt.n_embd;
  j["block_size"] = gpt.block_size;
  j["dropout"] = gpt.dropout;
  j["bias"] = gpt.bias;
  j["tied"] = gpt.tied;
  j["activation"] = gpt.activation;
  j["batch_size"] = batch_size;
  j["grad_accum"] = grad_accum;
  j["max_iters"] = max_iters;
  j["lr"] = lr;
  j["min_lr"] = min_lr;
  j["decay_lr"] = decay_lr;
  j["warmup_iters"] = warmup_iters;
  j["lr_decay_iters"] = lr_decay_iters;
  j["weight_decay"] = weight_decay;
  j["beta1"] = beta1;
  j["beta2"] = beta2;
  j["eps"] = eps;
  j["grad_clip"] = grad_clip;
  j["eval_interval"] = eval_interval;
  j["eval_iters"] = eval_iters;
  j["log_interval"] = log_interval;
  j["seed"] = seed;
  j["threads"] = threads;
  j["matmul"] = matmul;
  j["rng_stream"] = rng_stream;
  return j;
}

namespace {
// A config value of exactly the key's type: a whole number in the field's range for integers (no
// 1.7, no 1e12 into an int), a finite number for reals, true/false, a string.
// "n_layer" -> "'n_layer' (--n-layer)": the key and the flag that sets it.
std::string key_and_flag(const char* key) {
  std::string flag = key;
  for (char& c : flag)
    if (c == '_') c = '-';
  return std::string("'") + key + "' (--" + flag + ")";
}

template <typename T>
void take(const json& j, const char* key, T& dst) {
  if (!j.contains(key)) return;
  const json& v = j.at(key);
  const std::string name = "config key " + key_and_flag(key);
  if constexpr (std::is_same_v<T, bool>) {
    SG_CHECK(v.is_boolean(), name, " has the wrong type: it must be true or false, got ",
             v.dump());
    dst = v.get<bool>();
  } else if constexpr (std::is_integral_v<T>) {
    SG_CHECK(v.is_number_integer(), name, " has the wrong type: it must be a whole number, got ",
             v.dump());
    using Lim = std::numeric_limits<T>;
    const bool fits = v.is_number_unsigned()
                          ? v.get<uint64_t>() <= static_cast<uint64_t>(Lim::max())
                          : v.get<int64_t>() >= static_cast<int64_t>(Lim::min()) &&
                                (Lim::is_signed || v.get<int64_t>() >= 0) &&
                                static_cast<uint64_t>(v.get<int64_t>()) <=
                                    static_cast<uint64_t>(Lim::max());
    SG_CHECK(fits, name, " is out of range: ", v.dump(), " (from ", +Lim::min(), " to ",
             +Lim::max(), ")");
    dst = v.get<T>();
  } else if constexpr (std::is_floating_point_v<T>) {
    SG_CHECK(v.is_number(), name, " has the wrong type: it must be a number, got ", v.dump());
    SG_CHECK(std::isfinite(v.get<double>()), name, " must be a finite number, got ",
             v.get<double>());
    dst = v.get<T>();
  } else {
    SG_CHECK(v.is_string(), name, " has the wrong type: it must be a string, got ", v.dump());
    dst = v.get<T>();
  }
}
}  // namespace

void TrainConfig::apply_json(const json& j) {
  SG_CHECK(j.is_object(), "a training config must be a JSON object");
  const json known = to_json();
  for (auto it = j.begin(); it != j.end(); ++it)
    SG_CHECK(known.contains(it.key()), "unknown config key '", it.key(),
             "': see 'scratchgpt train --help' for the names");
  take(j, "preset", preset);
  take(j, "model", model);
  take(j, "vocab_size", gpt.vocab_size);
  take(j, "n_layer", gpt.n_layer);
  take(j, "n_head", gpt.n_head);
  take(j, "n_embd", gpt.n_embd);
  take(j, "block_size", gpt.block_size);
  take(j, "dropout", gpt.dropout);
  take(j, "bias", gpt.bias);
  take(j, "tied", gpt.tied);
  take(j, "activation", gpt.activation);
  take(j, "batch_size", batch_size);
  take(j, "grad_accum", grad_accum);
  take(j, "max_iters", max_iters);
  take(j, "lr", lr);
  take(j, "min_lr", min_lr);
  take(j, "decay_lr", decay_lr);
  take(j, "warmup_iters", warmup_iters);
  take(j, "lr_decay_iters", lr_decay_iters);
  take(j, "weight_decay", weight_decay);
  take(j, "beta1", beta1);
  take(j, "beta2", beta2);
  take(j, "eps", eps);
  take(j, "grad_clip", grad_clip);
  take(j, "eval_interval", eval_interval);
  take(j, "eval_iters", eval_iters);
  take(j, "log_interval", log_interval);
  take(j, "seed", seed);
  take(j, "threads", threads);
  take(j, "matmul", matmul);
  take(j, "rng_stream", rng_stream);
}

void TrainConfig::validate() const {
  SG_CHECK(model == "gpt" || model == "bigram", "model must be 'gpt' or 'bigram', got '", model,
           "'");
  if (model == "gpt") {
    gpt.validate();
  } else {
    SG_CHECK(gpt.block_size > 0, "block_size must be positive, got ", gpt.block_size);
  }
  SG_CHECK(batch_size > 0, "batch size must be positive, got ", batch_size,
           ": pass --batch-size 1 or more");
  SG_CHECK(grad_accum > 0, "grad_accum must be positive, got ", grad_accum);
  SG_CHECK(max_iters >= 0, "max_iters must be >= 0, got ", max_iters);
  for (const auto& [name, v] :
       {std::pair<const char*, double>{"lr", lr}, {"min_lr", min_lr}, {"dropout", gpt.dropout},
        {"weight_decay", weight_decay}, {"beta1", beta1}, {"beta2", beta2}, {"eps", eps},
        {"grad_clip", grad_clip}})
    SG_CHECK(std::isfinite(v), name, " must be a finite number, got ", v);
  SG_CHECK(lr > 0, "lr must be positive, got ", lr);
  SG_CHECK(rng_stream == "split" || rng_stream == "nanogpt", "rng_stream must be 'split' or "
           "'nanogpt', got '", rng_stream, "'");
  SG_CHECK(min_lr >= 0 && min_lr <= lr, "min_lr must be in [0, lr], got ", min_lr);
  SG_CHECK(warmup_iters >= 0, "warmup_iters must be >= 0, got ", warmup_iters);
  SG_CHECK(!decay_lr || lr_decay_iters > warmup_iters, "lr_decay_iters (", lr_decay_iters,
           ") must exceed warmup_iters (", warmup_iters, ")");
  SG_CHECK(weight_decay >= 0, "weight_decay must be >= 0, got ", weight_decay);
  SG_CHECK(beta1 >= 0 && beta1 < 1 && beta2 >= 0 && beta2 < 1, "beta1 and beta2 must be in [0, 1)");
  SG_CHECK(eps > 0, "eps must be positive, got ", eps);
  SG_CHECK(grad_clip >= 0, "grad_clip must be >= 0 (0 disables), got ", grad_clip);
  SG_CHECK(eval_interval > 0, "eval_interval must be positive, got ", eval_interval);
  SG_CHECK(eval_iters > 0, "eval_iters must be positive, got ", eval_iters);
  SG_CHECK(log_interval > 0, "log_interval must be positive, got ", log_interval);
  SG_CHECK(threads >= 0, "threads must be >= 0 (0: all cores), got ", threads);
  cpu::parse_matmul_backend(matmul);  // an unknown name, or onednn in a build without it
}

}  // namespace scratchgpt
