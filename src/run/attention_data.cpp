// attention_data.cpp: attention_page_data (see attention.h), apart from run_attention so that a
// build without files or pages (the WebAssembly lesson book) can compile it with only the model,
// the checkpoint and the tokenizer.
#include <cmath>
#include <cstring>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "core/check.h"
#include "core/utf8.h"
#include "io/checkpoint.h"
#include "nn/gpt.h"
#include "run/attention.h"

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
    SG_CHECK(att != nullptr, "layer ", l, " kept no attention weights: build the GPT with ",
             "fused_attention_min_T above ", T);
    nlohmann::json layer = nlohmann::json::array();
    for (int h = 0; h < g.n_head; ++h)
      layer.push_back(packed_rows(att + static_cast<size_t>(h) * T * T, T));
    d["weights"].push_back(std::move(layer));
    const float* qkv = gpt.attention_qkv(l);  // (B = 1, T, 3C)
    d["qkv"].push_back(base64_floats(qkv, static_cast<size_t>(T) * 3 * C));
  }
  return d;
}

}  // namespace scratchgpt
