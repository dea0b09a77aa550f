// attention.cpp: see attention.h.
#include "run/attention.h"

#include <climits>
#include <cstdio>
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

// What the page draws (assets/attention.js): the model's shape, the prompt's ids and their
// labels, and the weights of every layer and head, (L, NH, T*T), each float exactly.
nlohmann::json page_data(const AttentionRequest& req, const Checkpoint& ck, const GPT& gpt,
                         const std::vector<int32_t>& ids) {
  const GPTConfig& g = ck.cfg.gpt;
  const int T = static_cast<int>(ids.size());
  nlohmann::json d = {{"checkpoint", req.checkpoint},
                      {"n_layer", g.n_layer},
                      {"n_head", g.n_head},
                      {"n_embd", g.n_embd},
                      {"block_size", g.block_size},
                      {"tokenizer", ck.tokenizer.describe()},
                      {"ids", ids},
                      {"tokens", nlohmann::json::array()},
                      {"weights", nlohmann::json::array()}};
  for (int32_t id : ids) d["tokens"].push_back(visible(ck.tokenizer.decode_one(id)));
  for (int l = 0; l < g.n_layer; ++l) {
    const float* att = gpt.attention_weights(l);
    SG_CHECK(att != nullptr, "layer ", l, " kept no attention weights");  // the stored kernel ran
    nlohmann::json layer = nlohmann::json::array();
    for (int h = 0; h < g.n_head; ++h) {
      const float* w = att + static_cast<size_t>(h) * T * T;  // (B = 1, NH, T, T)
      layer.push_back(std::vector<double>(w, w + static_cast<size_t>(T) * T));
    }
    d["weights"].push_back(std::move(layer));
  }
  return d;
}

}  // namespace

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
  const int T = static_cast<int>(ids.size());
  Exec exec = make_exec(1, MatmulBackend::kAuto);
  exec.ctx.fused_attention_min_T = INT_MAX;  // the stored kernel: it keeps the weights to draw
  GPT gpt(g, exec.ctx);
  restore_params(ck, gpt, /*with_optimizer=*/false);
  gpt.forward(ids.data(), nullptr, 1, T, nullptr);

  const Page page{.title = "scratchgpt attention",
                  .style = "attention.css",
                  .body = std::string(page_asset("attention.html")),
                  .data_id = "attention-data",
                  .scripts = {"page.js", "attention.js"}};
  write_page(req.out, rule, page, page_data(req, ck, gpt, ids));
  std::fprintf(out, "%d tokens, %d layers x %d heads -> %s\n", T, g.n_layer, g.n_head,
               req.out.c_str());
}

}  // namespace scratchgpt
