// sample.cpp: see sample.h.
#include "run/sample.h"

#include <algorithm>
#include <climits>

#include "core/check.h"
#include "run/exec.h"
#include "run/model_factory.h"
#include "sample/generate.h"
#include "train/checkpoint.h"

namespace scratchgpt {

void sample_from_checkpoint(const SampleRequest& req, std::FILE* out) {
  req.sampling.validate();
  SG_CHECK(req.num_tokens >= 0, "--num-tokens must be >= 0, got ", req.num_tokens);
  SG_CHECK(req.num_samples > 0, "--num-samples must be positive, got ", req.num_samples);
  SG_CHECK(req.block_size >= 0, "--block-size must be positive, got ", req.block_size);
  SG_CHECK(!req.prompt.empty(), "the prompt is empty: give at least one character");
  const ExecContext ctx = use_exec_context(req.threads, req.matmul);  // how to compute
  Checkpoint ck = load_checkpoint(req.checkpoint);
  const std::vector<int32_t> prompt = ck.tokenizer.encode(req.prompt);  // names unknown chars

  std::unique_ptr<LanguageModel> model = build_model(ck.cfg, ctx);
  restore_params(ck, *model, /*with_optimizer=*/false);
  ck.st = SafeTensors();
  const int model_ctx = model->block_size();
  // A bigram has no context limit; its window only bounds the (trivial) cache.
  const int trained_ctx = std::min(model_ctx, ck.cfg.gpt.block_size);
  int window = model_ctx == INT_MAX ? std::max(trained_ctx, 2) : model_ctx;
  if (req.block_size > 0) {
    SG_CHECK(req.block_size <= model_ctx, "--block-size ", req.block_size,
             " is longer than the checkpoint's model context (", model_ctx, "): use --block-size ",
             model_ctx, " or less");
    window = req.block_size;
  }

  Rng rng(req.seed);
  for (int s = 0; s < req.num_samples; ++s) {
    if (s > 0) std::fputs("\n---------------\n", out);
    std::fputs(req.prompt.c_str(), out);
    std::fflush(out);
    generate(*model, window, prompt, req.num_tokens, req.sampling, rng, [&](int32_t tok, const float*) {
      const std::string& c = ck.tokenizer.decode_one(tok);
      std::fwrite(c.data(), 1, c.size(), out);
      std::fflush(out);
    });
  }
  std::fputs("\n", out);
  std::fflush(out);
}

}  // namespace scratchgpt
