// attention.cpp: see attention.h.
#include "run/attention.h"

#include <climits>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "core/atomic_file.h"
#include "core/check.h"
#include "core/page.h"
#include "core/utf8.h"
#include "io/checkpoint.h"
#include "nn/gpt.h"
#include "run/exec.h"

namespace scratchgpt {

namespace {

// A token's bytes as the page shows them: valid UTF-8 kept, a byte of a character split across
// tokens as U+FFFD, a space as a middle dot, a newline as "\n", a tab as "\t".
std::string visible(const std::string& bytes) {
  std::string out;
  for (size_t pos = 0; pos < bytes.size();) {
    uint32_t cp = 0;
    if (!utf8_next(bytes, pos, &cp)) {
      out += "\xEF\xBF\xBD";
      ++pos;
      continue;
    }
    if (cp == ' ') out += "\xC2\xB7";
    else if (cp == '\n') out += "\\n";
    else if (cp == '\t') out += "\\t";
    else if (cp < 0x20) out += "\xEF\xBF\xBD";
    else out += utf8_encode(cp);
  }
  return out.empty() ? "\xE2\x88\x85" : out;  // an empty token shows as the empty-set sign
}

// n floats as their little-endian bytes in base64 (RFC 4648, padded): exact and ~5.3 characters
// a number, where JSON's decimal doubles take ~20.
std::string base64_floats(const float* x, size_t n) {
  static const char kAlphabet[] =
      "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
  std::vector<unsigned char> bytes(n * 4);
  for (size_t i = 0; i < n; ++i) {
    uint32_t u = 0;
    std::memcpy(&u, x + i, 4);
    for (int b = 0; b < 4; ++b) bytes[i * 4 + b] = static_cast<unsigned char>(u >> (8 * b));
  }
  std::string out;
  out.reserve((bytes.size() + 2) / 3 * 4);
  for (size_t i = 0; i < bytes.size(); i += 3) {
    const size_t left = bytes.size() - i;
    const uint32_t v = (uint32_t{bytes[i]} << 16) | (left > 1 ? uint32_t{bytes[i + 1]} << 8 : 0) |
                       (left > 2 ? uint32_t{bytes[i + 2]} : 0);
    out += kAlphabet[(v >> 18) & 63];
    out += kAlphabet[(v >> 12) & 63];
    out += left > 1 ? kAlphabet[(v >> 6) & 63] : '=';
    out += left > 2 ? kAlphabet[v & 63] : '=';
  }
  return out;
}

// Head h's weights (T, T) as their lower triangle, row by row: query i's keys 0..i.
std::string packed_rows(const float* w, int T) {
  std::vector<float> tri;
  tri.reserve(static_cast<size_t>(T) * (T + 1) / 2);
  for (int i = 0; i < T; ++i)
    tri.insert(tri.end(), w + static_cast<size_t>(i) * T, w + static_cast<size_t>(i) * T + i + 1);
  return base64_floats(tri.data(), tri.size());
}

}  // namespace

nlohmann::json attention_page_data(const Checkpoint& ck, GPT& gpt,
                                   const std::vector<int32_t>& ids) {
  const GPTConfig& g = ck.cfg.gpt;
  const int T = static_cast<int>(ids.size()), C = g.n_embd;
  SG_CHECK(T >= 1 && T <= g.block_size, "the attention page takes 1 to ", g.block_size,
           " tokens, not ", T, ": shorten the prompt");
  gpt.forward(ids.data(), nullptr, 1, T, nullptr);
  const int HS = C / g.n_head;
  nlohmann::json d = {{"checkpoint", ck.path},
                      {"n_layer", g.n_layer},
                      {"n_head", g.n_head},
                      {"n_embd", C},
                      {"block_size", g.block_size},
                      {"head_size", HS},
                      {"scale", 1.0 / std::sqrt(static_cast<double>(HS))},
                      {"tokenizer", ck.tokenizer.describe()},
                      {"ids", ids},
                      {"tokens", nlohmann::json::array()},
                      {"weights", nlohmann::json::array()},
                      {"qkv", nlohmann::json::array()}};
  for (int32_t id : ids) d["tokens"].push_back(visible(ck.tokenizer.decode_one(id)));
  for (int l = 0; l < g.n_layer; ++l) {
    const float* att = gpt.attention_weights(l);  // (B = 1, NH, T, T)
    SG_CHECK(att != nullptr, "layer ", l,
             " kept no attention weights: build the GPT with "
             "fused_attention_min_T above ",
             T);
    nlohmann::json layer = nlohmann::json::array();
    for (int h = 0; h < g.n_head; ++h)
      layer.push_back(packed_rows(att + static_cast<size_t>(h) * T * T, T));
    d["weights"].push_back(std::move(layer));
    d["qkv"].push_back(base64_floats(gpt.attention_qkv(l), static_cast<size_t>(T) * 3 * C));
  }
  return d;
}

void run_attention(const AttentionRequest& req, std::FILE* out) {
  SG_CHECK(!req.checkpoint.empty(), "--checkpoint is required: a GPT checkpoint");
  SG_CHECK(!req.out.empty(), "--out is required: the .html file to write");
  SG_CHECK(!req.prompt.empty(), "--prompt is empty: give the text whose attention to draw");
  const UserOutput rule{"--out", req.overwrite};  // the output rule (core/atomic_file.h)
  check_not_input(req.out, rule, req.checkpoint, "--checkpoint");
  check_output(req.out, rule);
  const Checkpoint ck = load_checkpoint(req.checkpoint);
  SG_CHECK(ck.cfg.model == ModelKind::kGpt, ck.path,
           " holds a bigram model, which has no attention: give a GPT checkpoint");
  std::vector<int32_t> ids = ck.tokenizer.encode(req.prompt);
  const GPTConfig& g = ck.cfg.gpt;
  if (static_cast<int>(ids.size()) > g.block_size) {
    std::fprintf(stderr, "note: the prompt is %zu tokens, longer than the model's context of %d: "
                 "drawing its last %d\n", ids.size(), g.block_size, g.block_size);
    ids.erase(ids.begin(), ids.end() - g.block_size);
  }
  SG_CHECK(!ids.empty(), "--prompt made no tokens: give text the tokenizer can encode");
  Exec exec = make_exec(1, MatmulBackend::kAuto);
  exec.ctx.fused_attention_min_T = INT_MAX;  // the stored kernel: it keeps the weights to draw
  GPT gpt(g, exec.ctx);
  restore_params(ck, gpt, /*with_optimizer=*/false);
  const nlohmann::json data = attention_page_data(ck, gpt, ids);

  const Page page{.title = "scratchgpt attention",
                  .style = "attention.css",
                  .body = std::string(page_asset("attention.html")),
                  .data_id = "attention-data",
                  .scripts = {"page.js", "attention.js"}};
  write_page(req.out, rule, page, data);
  std::fprintf(out, "%zu tokens, %d layers x %d heads -> %s\n", ids.size(), g.n_layer, g.n_head,
               req.out.c_str());
}

}  // namespace scratchgpt
