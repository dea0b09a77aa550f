// language_model.h: what the trainer, the sampler, checkpoints and `scratchgpt bench` need of a
// model (the bigram table and the GPT both implement it). Parameters are exposed as one list of
// named Params (value, grad and the AdamW moments side by side): the single visitor that sizes the
// slabs, zeroes grads, clips, steps AdamW, saves and loads checkpoints and (later) all-reduces.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "core/rng.h"
#include "core/tensor.h"

namespace scratchgpt {

struct Param {
  std::string name;  // e.g. "blocks.0.attn.qkv_w", the key in checkpoints
  Tensor value;      // the weights, shape as in PyTorch (Linear weight (OC, C))
  Tensor grad;       // same shape, accumulated by backward()
  Tensor m, v;       // AdamW first and second moments, same shape
  bool decay;        // weight decay applies (2-D weights only, as nanoGPT)
};

class LanguageModel {
 public:
  virtual ~LanguageModel() = default;

  // idx, targets (B, T) token ids; targets may be null (then no loss). dropout_rng non-null means
  // training mode (dropout active, masks drawn from it); null means eval mode. Returns the mean
  // cross-entropy loss (or 0 when targets is null). Logits (B, T, V) stay available via logits().
  virtual float forward(const int32_t* idx, const int32_t* targets, int B, int T,
                        Rng* dropout_rng) = 0;
  // Backward of the last forward with targets: accumulates (+=) into every Param::grad.
  virtual void backward() = 0;
  virtual Tensor logits() = 0;  // (B, T, V) of the last forward

  virtual std::vector<Param>& params() = 0;
  virtual int vocab_size() const = 0;
  virtual int block_size() const = 0;  // longest context T the model accepts

  void zero_grad() {
    for (Param& p : params())
      for (float& g : p.grad) g = 0.0f;
  }
  int64_t num_params() const {
    int64_t n = 0;
    for (const Param& p : const_cast<LanguageModel*>(this)->params()) n += p.value.numel();
    return n;
  }
};

}  // namespace scratchgpt
