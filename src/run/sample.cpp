// sample.cpp: see sample.h.
#include "run/sample.h"

#include <algorithm>
#include <climits>

#include "core/check.h"
#include "core/utf8.h"
#include "io/checkpoint.h"
#include "run/exec.h"
#include "run/model_factory.h"

namespace scratchgpt {

void TextStream::put(int32_t id) {
  // Each piece Utf8HoldBack lets out ends where no character is cut, so replacing piece by piece
  // equals replacing the whole text (tested).
  const std::string s = hold_.push(tokenizer_.decode_one(id));
  if (!s.empty()) write_(utf8_replace_invalid(s));
}

void TextStream::finish() {
  const std::string s = hold_.flush();
  if (!s.empty()) write_(utf8_replace_invalid(s));
}

void sample_from_checkpoint(const SampleRequest& req, std::FILE* out, std::FILE* err) {
  req.sampling.validate();
  SG_CHECK(req.max_new_tokens >= 0, "--max-new-tokens must be >= 0, got ", req.max_new_tokens);
  SG_CHECK(req.num_samples > 0, "--num-samples must be positive, got ", req.num_samples);
  SG_CHECK(req.block_size >= 0, "--block-size must be positive, got ", req.block_size);
  const Exec exec = make_exec(req.threads, req.matmul, req.simd, req.device);  // how to compute
  const ExecContext& ctx = exec.ctx;
  // load_checkpoint refuses a config whose vocab_size differs from the tokenizer's.
  const kernels::WeightFormat weights = weight_format(req.weights);  // before the long load
  Checkpoint ck = load_checkpoint(req.checkpoint);
  const Tokenizer& tok = ck.tokenizer;
  const int32_t eot = tok.is_bpe() ? tok.bpe().eot_id() : -1;
  std::vector<int32_t> prompt;
  if (req.prompt.empty()) {
    SG_CHECK(eot >= 0,
             "the prompt is empty: give at least one character (only a BPE tokenizer "
             "with <|endoftext|> can start from nothing; this checkpoint's is ",
             tok.describe(), ")");
    prompt = {eot};  // GPT-2's start of a document
  } else if (tok.is_bpe()) {
    // nanoGPT's sample.py: enc.encode(s, allowed_special={"<|endoftext|>"})
    prompt = tok.bpe().encode(req.prompt, /*allow_special=*/true);
  } else {
    prompt = tok.encode(req.prompt);  // names characters outside the vocabulary
  }

  std::unique_ptr<LanguageModel> model = build_model(ck.cfg, ctx);
  restore_params(ck, *model, /*with_optimizer=*/false);
  model->convert_weights(weights);
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
  if (static_cast<int64_t>(prompt.size()) > window)
    std::fprintf(err,
                 "note: the prompt is %zu tokens, longer than the context (%d): the model "
                 "sees its last %d, as nanoGPT crops idx[:, -block_size:]\n",
                 prompt.size(), window, window);

  const int32_t stop = req.stop_at_eot ? eot : -1;
  Rng rng(req.seed);
  if (req.nanogpt_rng) {  // torch.manual_seed(seed); model = GPT(gptconf): the init's draws
    std::unique_ptr<LanguageModel> drawn = build_model(ck.cfg, ctx);
    drawn->init(rng);
  }
  SamplingOptions sampling = req.sampling;
  sampling.vocab_limit = tok.vocab_size();  // a padded vocabulary's extra rows are never drawn
  for (int s = 0; s < req.num_samples; ++s) {
    if (s > 0) std::fputs("\n---------------\n", out);
    std::fputs(req.prompt.c_str(), out);
    std::fflush(out);
    TextStream text(tok, [out](std::string_view b) {
      std::fwrite(b.data(), 1, b.size(), out);
      std::fflush(out);
    });
    generate(
        *model, window, prompt, req.max_new_tokens, sampling, rng,
        [&](int32_t id, const float*) {
          if (id != stop) text.put(id);  // the end of the text is not written
        },
        req.context_rule, stop);
    text.finish();
  }
  std::fputs("\n", out);
  std::fflush(out);
}

}  // namespace scratchgpt
