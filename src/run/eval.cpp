// eval.cpp: see eval.h.
#include "run/eval.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <memory>

#include "core/check.h"
#include "core/utf8.h"
#include "data/dataset.h"
#include "data/file_io.h"
#include "io/checkpoint.h"
#include "run/exec.h"
#include "run/model_factory.h"
#include "train/evaluate.h"

namespace scratchgpt {

EvalResult evaluate_checkpoint(const EvalRequest& req, std::FILE* out) {
  using Clock = std::chrono::steady_clock;
  SG_CHECK(req.split == "val" || req.split == "train", "unknown --split '", req.split,
           "': choose val or train");
  SG_CHECK(req.batches >= 0, "--batches must be >= 0 (0: the whole split), got ", req.batches);
  SG_CHECK(req.batch_size >= 0, "--batch-size must be positive, got ", req.batch_size);
  SG_CHECK(req.block_size >= 0, "--block-size must be positive, got ", req.block_size);
  SG_CHECK(req.data_dir.empty() != req.text.empty(),
           req.text.empty() ? "--data-dir or --text is required: the prepared dataset, or a text "
                              "file, to evaluate on"
                            : "--data-dir and --text are two things to evaluate on: pass one");
  // How to compute (--threads, --matmul): checked and applied before any work.
  const Exec exec = make_exec(req.threads, req.matmul, req.simd, req.device, req.dtype);
  const ExecContext& ctx = exec.ctx;

  const kernels::WeightFormat weights = weight_format(req.weights);  // before the long load
  SG_CHECK(weights == kernels::WeightFormat::kFp32 || req.dtype == Dtype::kFp32,
           "--weights ", req.weights, " and --dtype bf16 are two precisions for the same products: "
           "pass one (--weights converts the weights once; --dtype bf16 rounds both inputs)");
  Checkpoint ck = load_checkpoint(req.checkpoint);
  Dataset data;
  std::string what = req.split;  // what the summary line names
  if (!req.text.empty()) {
    // The text, tokenized as 'prepare' tokenizes a split: the checkpoint's characters, or its BPE
    // with "<|endoftext|>" as plain text unless --allow-special.
    SG_CHECK(!req.allow_special || ck.tokenizer.is_bpe(), "--allow-special reads <|endoftext|> as "
             "a BPE's special token, and this checkpoint's tokenizer is ", ck.tokenizer.describe(),
             ", which has none: leave the flag out");
    const std::string text = read_file(req.text);
    const size_t bad = utf8_invalid_offset(text);
    SG_CHECK(bad == std::string::npos, "--text ", req.text, " is not valid UTF-8 at byte offset ",
             bad, ": convert it to UTF-8 first (e.g. iconv -f LATIN1 -t UTF-8)");
    const std::vector<int32_t> ids = ck.tokenizer.is_bpe()
                                         ? ck.tokenizer.bpe().encode_parallel(text, req.allow_special, 0)
                                         : ck.tokenizer.encode(text);
    data.val.assign(ids.begin(), ids.end());
    what = "text";
  } else {
    data = Dataset::load(req.data_dir, ck.tokenizer.vocab_size());  // nanoGPT's raw files: the model's V
    SG_CHECK(data.tokenizer.same_as(ck.tokenizer), "the vocabulary of ", req.data_dir, " (",
             data.tokenizer.describe(), ") differs from the checkpoint's (",
             ck.tokenizer.describe(), "): evaluate on data prepared with the same tokenizer");
  }
  const std::string source = req.text.empty() ? req.split + " split of " + req.data_dir : req.text;
  std::unique_ptr<LanguageModel> built = build_model(ck.cfg, ctx);
  LanguageModel& model = *built;
  const int model_ctx = model.block_size();
  // A bigram has no context limit; its trained T is the natural window.
  const int T = req.block_size > 0 ? req.block_size : std::min(model_ctx, ck.cfg.gpt.block_size);
  SG_CHECK(T <= model_ctx, "--block-size ", T, " is longer than the checkpoint's model context (",
           model_ctx, "): use --block-size ", model_ctx, " or less");
  const int B = req.batch_size > 0 ? req.batch_size : ck.cfg.batch_size;
  const std::vector<uint32_t>& split = req.split == "val" || !req.text.empty() ? data.val : data.train;
  SG_CHECK(static_cast<int64_t>(split.size()) >= int64_t{T} + 1, "the ", source, " has ",
           split.size(), " tokens, fewer than block_size + 1 = ", T + 1,
           req.text.empty() ? ": use a smaller --block-size" : ": use a smaller --block-size or a longer text");

  restore_params(ck, model, /*with_optimizer=*/false);
  ck.st = SafeTensors();
  model.convert_weights(weights);

  const auto t0 = Clock::now();
  EvalResult r;
  std::string how;
  if (req.batches == 0) {
    const FullLoss f = full_loss(model, split.data(), static_cast<int64_t>(split.size()), B, T);
    r.loss = f.loss;
    r.tokens = f.tokens;
    how = std::to_string(f.windows) + " windows of " + std::to_string(T) + ", all of the " +
          (req.text.empty() ? "split" : "text");
  } else {
    Rng rng(req.seed);
    std::vector<int32_t> x(static_cast<size_t>(B) * T), y(x.size());
    r.loss = estimate_loss(model, split, B, T, req.batches, rng, x, y);
    r.tokens = int64_t{req.batches} * B * T;
    how = std::to_string(req.batches) + " random batches of " + std::to_string(B) + " x " +
          std::to_string(T) + ", seed " + std::to_string(req.seed);
  }
  r.seconds = std::chrono::duration<double>(Clock::now() - t0).count();
  std::fprintf(out, "%s loss %.4f (perplexity %.2f) over %lld tokens: %s, %.1f s\n",
               what.c_str(), r.loss, std::exp(r.loss), static_cast<long long>(r.tokens),
               how.c_str(), r.seconds);
  std::fflush(out);
  return r;
}

}  // namespace scratchgpt
