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
#include "io/checkpoint.h"
#include "nn/gpt.h"
#include "run/exec.h"

namespace scratchgpt {

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
  const kernels::WeightFormat weights = weight_format(req.weights);
  Exec exec = make_exec(1, MatmulBackend::kAuto);
  exec.ctx.fused_attention_min_T = INT_MAX;  // the stored kernel: it keeps the weights to draw
  GPT gpt(g, exec.ctx);
  restore_params(ck, gpt, /*with_optimizer=*/false);
  gpt.convert_weights(weights);  // the attention of the model as --weights holds it
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
