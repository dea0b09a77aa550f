// gpt_web.cpp: the WebAssembly entry of the book's GPT page (web/gpt/gpt.html): the engine's own
// C++ behind five C functions that return JSON text: sample_from_checkpoint (run/sample.h) for
// generation, run_attention (run/attention.h) for the attention data the CLI page embeds, and the
// chosen head's computation read from the model's own activations (q, k, v, weights, y).
// Leaves out: a second model in JavaScript (the page only draws), threads, SIMD (wasm runs the
// scalar kernels: cpu_features reports SimdLevel::kScalar off x86).
#include <emscripten/emscripten.h>

#include <climits>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <memory>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>
#include <vector>

#include "core/check.h"
#include "core/page.h"
#include "io/checkpoint.h"
#include "nn/gpt.h"
#include "run/attention.h"
#include "run/exec.h"
#include "run/sample.h"

namespace scratchgpt {

namespace {

// Embedded with --embed-file at link time (web/gpt/CMakeLists.txt).
constexpr const char* kModelPath = "/model/model.safetensors";

// The model the trace reads, with the prompt of the last gpt_attention call run through it.
struct Loaded {
  Checkpoint ck;
  Exec exec;
  std::unique_ptr<GPT> gpt;
  std::vector<int32_t> ids;
};

Loaded& loaded() {
  static Loaded m = [] {
    Loaded l{load_checkpoint(kModelPath), make_exec(1, MatmulBackend::kAuto), nullptr, {}};
    SG_CHECK(l.ck.cfg.model == ModelKind::kGpt, kModelPath, " holds no GPT");
    l.exec.ctx.fused_attention_min_T = INT_MAX;  // the stored kernel: it keeps the weights
    l.gpt = std::make_unique<GPT>(l.ck.cfg.gpt, l.exec.ctx);
    restore_params(l.ck, *l.gpt, /*with_optimizer=*/false);
    return l;
  }();
  return m;
}

std::string slurp(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

// The text handed to JavaScript; valid until the next call.
const char* reply(const nlohmann::json& j) {
  static std::string text;
  text = j.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
  return text.c_str();
}

template <class Fn>
const char* guarded(Fn fn) {
  try {
    return reply(fn());
  } catch (const std::exception& e) {
    return reply({{"error", e.what()}});
  }
}

// The JSON island of the page run_attention wrote: what the CLI's page draws, unchanged.
// (When run/attention.h offers the island's builder itself, call it with loaded().gpt instead.)
nlohmann::json attention_island(const std::string& prompt) {
  const std::string out = "/tmp/attention.html";
  std::remove(out.c_str());
  std::FILE* log = std::fopen("/tmp/attention.log", "w");
  run_attention({.checkpoint = kModelPath, .prompt = prompt, .out = out, .overwrite = true}, log);
  std::fclose(log);
  const std::string page = slurp(out);
  const std::string open = "<script id=\"attention-data\" type=\"application/json\">";
  const size_t begin = page.find(open);
  SG_CHECK(begin != std::string::npos, "the attention page has no data island");
  const size_t end = page.find("</script>", begin);
  return nlohmann::json::parse(page.substr(begin + open.size(), end - begin - open.size()));
}

std::vector<double> row(const float* p, int n) { return std::vector<double>(p, p + n); }

// Head h of layer l, query position t, from the last forward: q, every key and value up to t,
// q.k, the scale, the engine's softmax row (its weights, the future masked) and its output y.
nlohmann::json head_trace(int l, int h, int t) {
  Loaded& m = loaded();
  const GPTConfig& g = m.ck.cfg.gpt;
  const int T = static_cast<int>(m.ids.size());
  SG_CHECK(T > 0, "run gpt_attention first");
  SG_CHECK(l >= 0 && l < g.n_layer && h >= 0 && h < g.n_head && t >= 0 && t < T,
           "layer, head or position out of range");
  const int C = g.n_embd, HS = C / g.n_head;
  const CausalSelfAttention& a = m.gpt->block(l).attn;
  const float* qkv = a.c_attn.out;  // (B = 1, T, 3C): q, k, v side by side
  const float* att = m.gpt->attention_weights(l) + (static_cast<size_t>(h) * T + t) * T;
  nlohmann::json keys = nlohmann::json::array(), values = nlohmann::json::array();
  std::vector<double> dots;
  for (int j = 0; j <= t; ++j) {
    const float* k = qkv + static_cast<size_t>(j) * 3 * C + C + h * HS;
    const float* q = qkv + static_cast<size_t>(t) * 3 * C + h * HS;
    float dot = 0.0f;  // in the order the page's table adds it: left to right
    for (int i = 0; i < HS; ++i) dot += q[i] * k[i];
    dots.push_back(dot);
    keys.push_back(row(k, HS));
    values.push_back(row(k + C, HS));
  }
  return {{"layer", l}, {"head", h}, {"pos", t}, {"head_size", HS},
          {"scale", 1.0 / std::sqrt(static_cast<double>(HS))},
          {"q", row(qkv + static_cast<size_t>(t) * 3 * C + h * HS, HS)},
          {"keys", keys}, {"values", values}, {"dots", dots},
          {"weights", row(att, T)},
          {"out", row(a.y + static_cast<size_t>(t) * C + h * HS, HS)}};
}

}  // namespace

}  // namespace scratchgpt

using scratchgpt::guarded;
using nlohmann::json;

extern "C" {

// {"text": prompt + generated} as 'scratchgpt sample --seed S --max-new-tokens N ...' prints it.
EMSCRIPTEN_KEEPALIVE const char* gpt_generate(const char* prompt, int max_new_tokens, double seed,
                                              float temperature, int top_k) {
  return guarded([&]() -> json {
    scratchgpt::SampleRequest req;
    req.checkpoint = scratchgpt::kModelPath;
    req.prompt = prompt;
    req.max_new_tokens = max_new_tokens;
    req.seed = static_cast<uint64_t>(seed);
    req.sampling.temperature = temperature;
    req.sampling.top_k = top_k;
    req.threads = 1;
    std::FILE* out = std::fopen("/tmp/sample.txt", "w");
    std::FILE* err = std::fopen("/tmp/sample.log", "w");
    scratchgpt::sample_from_checkpoint(req, out, err);
    std::fclose(out);
    std::fclose(err);
    return {{"text", scratchgpt::slurp("/tmp/sample.txt")},
            {"note", scratchgpt::slurp("/tmp/sample.log")}};
  });
}

// The attention page's data for the prompt (run/attention.cpp's island), and the prompt run through
// the model the trace reads.
EMSCRIPTEN_KEEPALIVE const char* gpt_attention(const char* prompt) {
  return guarded([&]() -> json {
    json d = scratchgpt::attention_island(prompt);
    scratchgpt::Loaded& m = scratchgpt::loaded();
    m.ids = d["ids"].get<std::vector<int32_t>>();
    m.gpt->forward(m.ids.data(), nullptr, 1, static_cast<int>(m.ids.size()), nullptr);
    return d;
  });
}

EMSCRIPTEN_KEEPALIVE const char* gpt_trace(int layer, int head, int pos) {
  return guarded([&] { return scratchgpt::head_trace(layer, head, pos); });
}

// An asset of assets/ as embedded in the engine (core/page.h): attention.js, page.js, ...
EMSCRIPTEN_KEEPALIVE const char* gpt_asset(const char* name) {
  return guarded([&]() -> json { return {{"text", std::string(scratchgpt::page_asset(name))}}; });
}

}  // extern "C"
