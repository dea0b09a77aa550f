// gpt_web.cpp: the WebAssembly entry of the book's GPT page (web/gpt/gpt.html): the engine's own
// C++ behind three C functions that return JSON text: sample_from_checkpoint (run/sample.h) for
// generation, attention_page_data (run/attention.h) on the loaded model for the attention that
// assets/attention.js draws and traces, and the embedded assets.
// Leaves out: a second model in JavaScript (the page only draws), threads, SIMD (wasm runs the
// scalar kernels: cpu_features reports SimdLevel::kScalar off x86).
#include <emscripten/emscripten.h>

#include <climits>
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

// The checkpoint and its GPT, loaded once, whose forward keeps the attention weights.
struct Loaded {
  Checkpoint ck;
  Exec exec;
  std::unique_ptr<GPT> gpt;
};

Loaded& loaded() {
  static Loaded m = [] {
    Loaded l{load_checkpoint(kModelPath), make_exec(1, MatmulBackend::kAuto), nullptr};
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

// The attention page's data (run/attention.h) for prompt's last block_size tokens, as
// 'scratchgpt attention' embeds it.
nlohmann::json attention(const std::string& prompt) {
  Loaded& m = loaded();
  std::vector<int32_t> ids = m.ck.tokenizer.encode(prompt);
  const int block = m.ck.cfg.gpt.block_size;
  if (static_cast<int>(ids.size()) > block) ids.erase(ids.begin(), ids.end() - block);
  SG_CHECK(!ids.empty(), "the prompt made no tokens: give text the tokenizer can encode");
  return attention_page_data(m.ck, *m.gpt, ids);
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

// The attention page's data for the prompt (what assets/attention.js's renderAttention draws).
EMSCRIPTEN_KEEPALIVE const char* gpt_attention(const char* prompt) {
  return guarded([&] { return scratchgpt::attention(prompt); });
}

// An asset of assets/ as embedded in the engine (core/page.h): attention.js, page.js, ...
EMSCRIPTEN_KEEPALIVE const char* gpt_asset(const char* name) {
  return guarded([&]() -> json { return {{"text", std::string(scratchgpt::page_asset(name))}}; });
}

}  // extern "C"
