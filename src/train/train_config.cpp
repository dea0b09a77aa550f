// train_config.cpp: see train_config.h.
#include "train/train_config.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <type_traits>

#include "core/check.h"
#include "kernels/kernels.h"

namespace scratchgpt {

using nlohmann::json;

std::vector<std::string> preset_names() {
  return {"bigram",          "shakespeare-char", "shakespeare-char-small", "shakespeare-bpe",
          "gpt2",            "gpt2-medium",      "gpt2-large",             "gpt2-xl"};
}

std::string preset_list() {
  std::string names;
  for (const auto& n : preset_names()) names += (names.empty() ? "" : ", ") + n;
  return names;
}

TrainConfig preset_config(const std::string& name) {
  TrainConfig c;
  c.preset = name;
  if (name == "bigram") {
    // The lecture's bigram.py: AdamW with torch's defaults, constant lr 1e-2.
    c.model = ModelKind::kBigram;
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
    c.gpt.bias = false, c.gpt.tied = true, c.gpt.activation = Activation::kGelu;
    c.batch_size = 64;
    c.max_iters = 5000, c.lr_decay_iters = 5000, c.warmup_iters = 100;
    c.lr = 1e-3, c.min_lr = 1e-4;
    c.beta2 = 0.99f;
    c.eval_interval = 250, c.eval_iters = 200;
    c.rng_stream = RngStream::kNanoGpt;
  } else if (name == "shakespeare-char-small") {
    // nanoGPT's CPU recipe for the same data (README "I only have a macbook").
    c.gpt.n_layer = 4, c.gpt.n_head = 4, c.gpt.n_embd = 128, c.gpt.block_size = 64;
    c.gpt.dropout = 0.0f;
    c.gpt.bias = false, c.gpt.tied = true, c.gpt.activation = Activation::kGelu;
    c.batch_size = 12;
    c.max_iters = 2000, c.lr_decay_iters = 2000, c.warmup_iters = 100;
    c.lr = 1e-3, c.min_lr = 1e-4;
    c.beta2 = 0.99f;
    c.eval_interval = 250, c.eval_iters = 20;
    c.rng_stream = RngStream::kNanoGpt;  // seed 1337 then draws nanoGPT's init, batches and eval batches
  } else if (name == "shakespeare-bpe") {
    // nanoGPT's data/shakespeare (GPT-2's tokens: prepare --tokenizer gpt2) on the CPU recipe
    // (shakespeare-char-small's model and schedule; 64 tokens are ~260 characters) with some
    // dropout: 2000 steps are ~5 passes over its 301,966 training tokens.
    c = preset_config("shakespeare-char-small");
    c.preset = name;
    c.gpt.dropout = 0.1f;
  } else if (name == "gpt2" || name == "gpt2-medium" || name == "gpt2-large" ||
             name == "gpt2-xl") {
    // OpenAI's GPT-2 (124M, 350M, 774M, 1558M): 50257 tokens, context 1024, biases, tanh GELU,
    // tied embeddings, no dropout; trained with nanoGPT's config/train_gpt2.py (and train.py's
    // defaults): 12 x 1024 tokens x 40 micro-steps a step, lr 6e-4 to 6e-5 over 600000 steps.
    struct Shape {
      const char* name;
      int n_layer, n_head, n_embd;
    };
    static constexpr Shape kShapes[] = {{"gpt2", 12, 12, 768},
                                        {"gpt2-medium", 24, 16, 1024},
                                        {"gpt2-large", 36, 20, 1280},
                                        {"gpt2-xl", 48, 25, 1600}};
    for (const Shape& s : kShapes)
      if (name == s.name) c.gpt.n_layer = s.n_layer, c.gpt.n_head = s.n_head, c.gpt.n_embd = s.n_embd;
    c.gpt.vocab_size = 50257, c.gpt.block_size = 1024;
    c.gpt.dropout = 0.0f;
    c.gpt.bias = true, c.gpt.tied = true, c.gpt.activation = Activation::kGelu;
    c.batch_size = 12, c.grad_accum = 40;
    c.max_iters = 600000, c.lr_decay_iters = 600000, c.warmup_iters = 2000;
    c.lr = 6e-4, c.min_lr = 6e-5;
    c.weight_decay = 0.1f;
    c.beta1 = 0.9f, c.beta2 = 0.95f;
    c.grad_clip = 1.0f;
    c.eval_interval = 1000, c.eval_iters = 200, c.log_interval = 10;
    c.rng_stream = RngStream::kSplit;
  } else {
    fail("unknown preset '", name, "': choose one of ", preset_list());
  }
  return c;
}

TrainConfig nanogpt_defaults() {
  TrainConfig c = preset_config("gpt2");
  c.preset.clear();
  c.gpt.bias = false;
  c.eval_interval = 2000, c.log_interval = 1;
  c.rng_stream = RngStream::kNanoGpt;
  return c;
}

const std::vector<ConfigAlias>& config_aliases() {
  static const std::vector<ConfigAlias> aliases = {
      {"learning_rate", "lr"}, {"gradient_accumulation_steps", "grad_accum"}};
  return aliases;
}

const std::vector<std::string>& ignored_config_keys() {
  static const std::vector<std::string> keys = {
      "out_dir",   "dataset",        "init_from",     "eval_only", "always_save_checkpoint",
      "wandb_log", "wandb_project",  "wandb_run_name", "backend",  "device",
      "dtype",     "compile"};
  return keys;
}

json canonical_config_keys(const json& j, std::vector<std::string>& ignored,
                           std::vector<std::string>& unknown, const std::string& source) {
  SG_CHECK(j.is_object(), source, " must hold config keys (a JSON object or key = value lines)");
  const auto& fields = config_fields();
  const auto& skip = ignored_config_keys();
  json out = json::object();
  for (auto it = j.begin(); it != j.end(); ++it) {
    std::string key = it.key();
    for (const ConfigAlias& a : config_aliases())
      if (key == a.nanogpt) key = a.ours;
    // nanoGPT's dtype ('float32', 'bfloat16', 'float16'; null from a .py config, whose value of
    // an ignored key is not read) is its GPU autocast's, nothing on a CPU: ignored. Ours (fp32,
    // bf16) is the dtype field.
    const bool nanogpt_dtype =
        key == "dtype" && (it->is_null() || *it == "float32" || *it == "bfloat16" ||
                           *it == "float16");
    if (nanogpt_dtype ||
        (key != "dtype" && std::find(skip.begin(), skip.end(), key) != skip.end())) {
      ignored.push_back(key);
      continue;
    }
    if (std::none_of(fields.begin(), fields.end(),
                     [&](const ConfigField& f) { return key == f.key; })) {
      unknown.push_back(it.key());
      continue;
    }
    SG_CHECK(!out.contains(key), source, " gives '", key, "' twice (as '", key, "' and as its ",
             "nanoGPT name): keep one");
    out[key] = *it;
  }
  return out;
}

template <typename T>
T json_whole_number(const json& v, const std::string& what) {
  SG_CHECK(v.is_number_integer(), what, " has the wrong type: it must be a whole number, got ",
           v.dump());
  using Lim = std::numeric_limits<T>;
  // A negative value fits a signed T down to its min (-1 is an int: the field's own check says
  // what it must be); a non-negative one up to T's max.
  const bool fits = v.is_number_unsigned() || v.get<int64_t>() >= 0
                        ? v.get<uint64_t>() <= static_cast<uint64_t>(Lim::max())
                        : Lim::is_signed && v.get<int64_t>() >= static_cast<int64_t>(Lim::min());
  SG_CHECK(fits, what, " is out of range: ", v.dump(), " (from ", +Lim::min(), " to ", +Lim::max(),
           ")");
  return v.get<T>();
}
template int json_whole_number<int>(const json&, const std::string&);
template int64_t json_whole_number<int64_t>(const json&, const std::string&);
template uint64_t json_whole_number<uint64_t>(const json&, const std::string&);

namespace {
// "n_layer" -> "'n_layer' (--n-layer)": the key and the flag that sets it.
std::string key_and_flag(const char* key) {
  std::string flag = key;
  for (char& c : flag)
    if (c == '_') c = '-';
  return std::string("'") + key + "' (--" + flag + ")";
}

// A config value of exactly the key's type: a whole number in the field's range for integers (no
// 1.7, no 1e12 into an int), a finite number for reals, true/false, a string, or one of an enum's
// names.
template <typename T>
void take(const json& v, const char* key, T& dst) {
  const std::string name = "config key " + key_and_flag(key);
  if constexpr (std::is_same_v<T, bool>) {
    SG_CHECK(v.is_boolean(), name, " has the wrong type: it must be true or false, got ",
             v.dump());
    dst = v.get<bool>();
  } else if constexpr (std::is_integral_v<T>) {
    dst = json_whole_number<T>(v, name);
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

using Kind = ConfigField::Kind;

// A row for a plain field: `at` returns the field of a config.
template <typename At>
ConfigField field(const char* key, std::string help, At at) {
  using T = std::remove_reference_t<decltype(at(std::declval<TrainConfig&>()))>;
  const Kind kind = std::is_same_v<T, bool>       ? Kind::kBool
                    : std::is_integral_v<T>       ? Kind::kInt
                    : std::is_floating_point_v<T> ? Kind::kReal
                                                  : Kind::kText;
  return {key, std::move(help), kind,
          [at](const TrainConfig& c) { return json(at(const_cast<TrainConfig&>(c))); },
          [at, key](TrainConfig& c, const json& v) { take(v, key, at(c)); }};
}

// A row for an enum field, written by name; its choices are appended to the help.
template <typename E, size_t N, typename At>
ConfigField enum_field(const char* key, std::string help,
                       const std::pair<E, const char*> (&names)[N], At at) {
  const EnumNames<E> table(names);
  return {key, help + " (" + enum_choices(table) + ")", Kind::kText,
          [at, table](const TrainConfig& c) {
            return json(enum_name(table, at(const_cast<TrainConfig&>(c))));
          },
          [at, key, table](TrainConfig& c, const json& v) {
            std::string name;
            take(v, key, name);
            at(c) = enum_from_name(table, name, key_and_flag(key));
          }};
}
}  // namespace

const std::vector<ConfigField>& config_fields() {
  // clang-format off
  static const std::vector<ConfigField> fields = {
      field("preset", "the preset the run started from (informational)",
            [](TrainConfig& c) -> auto& { return c.preset; }),
      enum_field("model", "the model", kModelKindNames,
                 [](TrainConfig& c) -> auto& { return c.model; }),
      field("vocab_size", "vocabulary size V (set from the data; nanoGPT's raw token files do not "
                          "say it: give it for them, 50257 for GPT-2's tokens)",
            [](TrainConfig& c) -> auto& { return c.gpt.vocab_size; }),
      field("n_layer", "transformer blocks L", [](TrainConfig& c) -> auto& { return c.gpt.n_layer; }),
      field("n_head", "attention heads NH", [](TrainConfig& c) -> auto& { return c.gpt.n_head; }),
      field("n_embd", "embedding width C", [](TrainConfig& c) -> auto& { return c.gpt.n_embd; }),
      field("block_size", "context length T", [](TrainConfig& c) -> auto& { return c.gpt.block_size; }),
      field("dropout", "dropout probability", [](TrainConfig& c) -> auto& { return c.gpt.dropout; }),
      field("bias", "biases in Linear and LayerNorm (true/false)",
            [](TrainConfig& c) -> auto& { return c.gpt.bias; }),
      field("tied", "tie the output head to wte (true/false)",
            [](TrainConfig& c) -> auto& { return c.gpt.tied; }),
      enum_field("activation",
                 "the MLP's nonlinearity: the lecture's relu, GPT-2's tanh gelu or nanoGPT's erf "
                 "gelu-exact", kActivationNames,
                 [](TrainConfig& c) -> auto& { return c.gpt.activation; }),
      field("batch_size", "batch size B per micro-step", [](TrainConfig& c) -> auto& { return c.batch_size; }),
      field("grad_accum", "micro-steps per optimizer step", [](TrainConfig& c) -> auto& { return c.grad_accum; }),
      field("max_iters", "optimizer steps in total", [](TrainConfig& c) -> auto& { return c.max_iters; }),
      field("lr", "peak learning rate", [](TrainConfig& c) -> auto& { return c.lr; }),
      field("min_lr", "final learning rate of the cosine", [](TrainConfig& c) -> auto& { return c.min_lr; }),
      field("decay_lr", "warmup + cosine schedule (true/false)", [](TrainConfig& c) -> auto& { return c.decay_lr; }),
      field("warmup_iters", "linear warmup steps", [](TrainConfig& c) -> auto& { return c.warmup_iters; }),
      field("lr_decay_iters", "step where the cosine ends", [](TrainConfig& c) -> auto& { return c.lr_decay_iters; }),
      field("weight_decay", "AdamW weight decay (2-D weights)", [](TrainConfig& c) -> auto& { return c.weight_decay; }),
      field("beta1", "AdamW beta1", [](TrainConfig& c) -> auto& { return c.beta1; }),
      field("beta2", "AdamW beta2", [](TrainConfig& c) -> auto& { return c.beta2; }),
      field("eps", "AdamW epsilon", [](TrainConfig& c) -> auto& { return c.eps; }),
      field("grad_clip", "global gradient norm clip (0: off)", [](TrainConfig& c) -> auto& { return c.grad_clip; }),
      field("eval_interval", "evaluate every this many steps", [](TrainConfig& c) -> auto& { return c.eval_interval; }),
      field("eval_iters", "batches per evaluation", [](TrainConfig& c) -> auto& { return c.eval_iters; }),
      field("log_interval", "plain progress line interval", [](TrainConfig& c) -> auto& { return c.log_interval; }),
      field("seed", "random seed (init, batches, dropout)", [](TrainConfig& c) -> auto& { return c.seed; }),
      field("threads", "worker threads (0: all cores; under mpirun, the machine's cores divided "
                       "among its processes)",
            [](TrainConfig& c) -> auto& { return c.threads; }),
      enum_field("matmul",
                 "matmul backend: own (our GEMM), onednn (oneDNN's sgemm; with --dtype bf16 its bf16 "
                 "matmul, on AMX tiles where the CPU has them) or mixed (each product on the faster "
                 "of the two; in bf16 oneDNN's only on AMX); auto is mixed in a build with oneDNN, "
                 "else own",
                 kMatmulBackendNames, [](TrainConfig& c) -> auto& { return c.matmul; }),
      enum_field("dtype",
                 "the matrix products' inputs: fp32, or bf16 (rounded to bf16, summed in fp32; "
                 "weights, gradients, AdamW and the checkpoint stay fp32; needs a CPU with "
                 "AVX512_BF16: Zen 4 and later, Sapphire Rapids, Cooper Lake)",
                 kDtypeNames, [](TrainConfig& c) -> auto& { return c.dtype; }),
      enum_field("rng_stream",
                 "split: a generator per purpose, evaluations never move the training batches; "
                 "nanogpt: one generator in nanoGPT's train.py order, its init, batches and "
                 "evaluation batches for the same seed. Default: nanogpt for the "
                 "shakespeare presets, split for bigram",
                 kRngStreamNames, [](TrainConfig& c) -> auto& { return c.rng_stream; }),
  };
  // clang-format on
  return fields;
}

json config_value_from_text(const ConfigField& f, const std::string& text) {
  const std::string flag = key_and_flag(f.key);
  if (f.kind == Kind::kText) return text;
  if (f.kind == Kind::kBool) {
    if (text == "true" || text == "1") return true;
    if (text == "false" || text == "0") return false;
    fail("flag ", flag, " takes true or false, got '", text, "'");
  }
  const char* wanted = f.kind == Kind::kInt ? "a whole number" : "a finite number";
  json v;
  try {
    v = json::parse(text);  // JSON numbers: no inf, nan or hex
  } catch (const json::exception&) {
    fail("flag ", flag, " takes ", wanted, ", got '", text, "'");
  }
  SG_CHECK(v.is_number(), "flag ", flag, " takes ", wanted, ", got '", text, "'");
  return v;
}

json TrainConfig::to_json() const {
  json j = json::object();
  for (const ConfigField& f : config_fields()) j[f.key] = f.get(*this);
  return j;
}

void TrainConfig::apply_json(const json& j) {
  SG_CHECK(j.is_object(), "a training config must be a JSON object");
  const auto& fields = config_fields();
  for (auto it = j.begin(); it != j.end(); ++it)
    SG_CHECK(std::any_of(fields.begin(), fields.end(),
                         [&](const ConfigField& f) { return it.key() == f.key; }),
             "unknown config key '", it.key(), "': see 'scratchgpt train --help' for the names");
  for (const ConfigField& f : fields)
    if (j.contains(f.key)) f.set(*this, j.at(f.key));
}

void TrainConfig::validate() const {
  if (model == ModelKind::kGpt) {
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
  // Without decay min_lr is unused (nanoGPT's finetune config lowers learning_rate below it).
  SG_CHECK(!decay_lr || (min_lr >= 0 && min_lr <= lr), "min_lr must be in [0, lr], got ", min_lr);
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
  SG_CHECK(matmul == MatmulBackend::kOwn || matmul == MatmulBackend::kAuto ||
               kernels::onednn_available(),
           "--matmul onednn and mixed need a build with oneDNN: apt-get install libdnnl-dev and "
           "configure with -DSCRATCHGPT_DNNL=ON, or use --matmul own");
}

}  // namespace scratchgpt
