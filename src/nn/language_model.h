// language_model.h: LanguageModel, the one way the trainer, the evaluator, the sampler,
// checkpoints and `scratchgpt bench` talk to a model (the bigram table and the GPT implement it):
// init, training (forward with targets, backward into the Params), and generation one token at a
// time through the model's cache (reset, prefill, decode_step). Parameters are one list of named
// Params (nn/param.h): the single visitor that zeroes grads, clips, steps AdamW, saves and loads
// checkpoints and all-reduces. backward(ready) reports the slab ranges it finishes, in order, so
// data-parallel training can sum them while backward goes on (train/train_step.cpp).
// Leaves out: batched generation, dtypes other than float32.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <span>
#include <string>
#include <vector>

#include "core/check.h"
#include "core/exec_context.h"
#include "core/rng.h"
#include "core/tensor.h"
#include "kernels/kernels.h"
#include "nn/param.h"

namespace scratchgpt {

class LanguageModel {
 public:
  virtual ~LanguageModel() = default;

  // Fresh weights, drawn from rng in the order the PyTorch twin draws them.
  virtual void init(Rng& rng) = 0;

  // idx, targets (B, T) token ids; targets may be null (then no loss). dropout_rng non-null means
  // training mode (dropout active, masks drawn from it); null means eval mode. Returns the mean
  // cross-entropy loss (or 0 when targets is null). Logits (B, T, V) stay available via logits().
  virtual float forward(const int32_t* idx, const int32_t* targets, int B, int T,
                        Rng* dropout_rng) = 0;
  // Backward of the last forward with targets: accumulates (+=) into every Param::grad.
  virtual void backward() = 0;
  // grad_slab() floats [begin, end) whose gradients this backward has finished writing.
  using GradsReady = std::function<void(size_t begin, size_t end)>;
  // The same backward, calling ready with each range of grad_slab() as soon as no later part of
  // backward writes into it: the ranges tile the slab exactly once, in the order finished. A model
  // that cannot tell (this default) reports the whole slab at the end; the GPT reports the tail
  // (ln_f, an untied lm_head), then each block from L-1 down to 0, then the embeddings.
  virtual void backward(const GradsReady& ready) {
    backward();
    ready(0, grad_slab().size());
  }
  virtual Tensor logits() = 0;  // (B, T, V) of the last forward
  // Allocates now what forward and backward at up to (B, T) need (the GPT's activation slab,
  // otherwise allocated by the first forward), so that a batch too large fails before a run
  // starts. A model that allocates as it goes (this default) does nothing.
  virtual void plan(int B, int T) {
    (void)B;
    (void)T;
  }

  // Generation, batch 1: the context lives in the model's cache (the GPT's keys and values).
  virtual void reset_cache() = 0;  // forget the context
  // Appends token at position cache_len(); returns the logits (V) for the next token, valid until
  // the next call. An Error when the cache already holds block_size() tokens.
  virtual const float* decode_step(int32_t token) = 0;
  // Appends n >= 1 tokens at once: the same as n decode_step calls up to rounding (a model may do
  // it faster, as the GPT's GEMMs do). Returns the logits (V) after the last one.
  virtual const float* prefill(const int32_t* tokens, int n) {
    const float* logits = nullptr;
    for (int i = 0; i < n; ++i) logits = decode_step(tokens[i]);
    return logits;
  }
  virtual int cache_len() const = 0;  // tokens in the cache
  // Holds the weights of the matrix products in `format` from now on, converted once from the
  // fp32 ones (--weights; inference only). A GPT gives the fp32 copies back to the system once
  // converted (gpt.h), so call it once, after loading. A model without such products accepts
  // only kFp32.
  virtual void convert_weights(kernels::WeightFormat format) {
    SG_CHECK(format == kernels::WeightFormat::kFp32,
             "--weights bf16 and int8 need a GPT model; this one has only fp32 weights: drop "
             "--weights");
  }

  virtual std::vector<Param>& params() = 0;
  // Every Param's gradient in one flat array (nn/param.h's ParamStore::grad_slab).
  virtual std::span<float> grad_slab() = 0;
  virtual int vocab_size() const = 0;
  virtual int block_size() const = 0;  // longest context T the model accepts
  // How the model computes (threads, SIMD level, matmul backend), given at construction; the
  // optimizer's kernels run with it too.
  virtual const ExecContext& exec() const = 0;
  // --dtype bf16 on the CPU: the weights the model also keeps packed for its matrix products (a
  // GPT's Linears', kernels::WeightPairsWords), which optimizer_step packs again as it writes
  // them, each block of rows while it is in cache; then it calls packed_weights_renewed(). Empty
  // (this default; a GPT before its first pack): the model packs them itself when it needs them.
  virtual std::span<const kernels::WeightPairsWords> packed_weights() { return {}; }
  virtual void packed_weights_renewed() {}

  // The gradients count as zero for the next backward(), which then leaves exactly its batch's
  // gradient in grad_slab() (a backward without zero_grad() adds to what is there). This clears
  // the slab; a model may instead have its next backward write some gradients rather than add to
  // them, leaving their memory as it is until then (GPT: its Linear layers').
  virtual void zero_grad() {
    const std::span<float> g = grad_slab();
    kernels::zero(exec(), g.data(), static_cast<int64_t>(g.size()));
  }
  int64_t num_params() const {
    int64_t n = 0;
    for (const Param& p : const_cast<LanguageModel*>(this)->params()) n += p.value.numel();
    return n;
  }
};

}  // namespace scratchgpt
