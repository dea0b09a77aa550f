// gpt.h: GPT, the decoder-only transformer of the lecture and nanoGPT's model.py: token and
// position embeddings, dropout, L Blocks, a final LayerNorm and the lm_head (tied to wte or not),
// trained with manual backward; plus batch-1 KV-cache decoding for generation.
// Leaves out: batched decoding, ignore_index targets, anything but float32.
// Simpler twin: src/nn/bigram.h (the first model of the lecture).
#pragma once

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "core/arena.h"
#include "core/exec_context.h"
#include "core/rng.h"
#include "core/tensor.h"
#include "nn/block.h"
#include "nn/dropout.h"
#include "nn/gpt_config.h"
#include "nn/language_model.h"
#include "nn/layernorm.h"
#include "nn/linear.h"

namespace scratchgpt {

class GPT : public LanguageModel {
 public:
  // Validates config; plans the parameter slabs. ctx: how to compute, kept for every kernel call
  // (its pool must outlive the model).
  explicit GPT(const GPTConfig& config, const ExecContext& ctx = ExecContext());
  GPT(const GPT&) = delete;
  GPT& operator=(const GPT&) = delete;

  // nanoGPT's init: Linear weights and embeddings ~ N(0, 0.02), biases 0, LayerNorm weight 1 and
  // bias 0, every c_proj.weight ~ N(0, 0.02/sqrt(2L)). Draws what constructing nanoGPT's modules
  // and then initialising them draws, in the same order, so a torch-exact Rng gives its weights.
  void init(Rng& rng) override;
  const GPTConfig& config() const { return config_; }

  float forward(const int32_t* idx, const int32_t* targets, int B, int T,
                Rng* dropout_rng) override;
  // Clears only the gradients that backward adds to: the layernorms', wpe's and an untied wte's
  // (0.7% of GPT-2 small's slab). Each Linear's next backward writes its own (Linear::
  // dparams_unset), which saves clearing them and reading the zeros back (GPT-2 small: 500 MB of
  // gradients, a step 654 -> 625 ms). Until backward runs, the slab holds stale values there.
  void zero_grad() override;
  void backward() override { backward(GradsReady()); }
  void plan(int B, int T) override { plan_activations(B, T); }
  // Reports the tail (ln_f, an untied lm_head), then blocks L-1 ... 0, then wte and wpe (with the
  // tied lm_head's gradient): grad_ranges() below.
  void backward(const GradsReady& ready) override;
  Tensor logits() override;  // (B, T, V) of the last forward
  std::vector<Param>& params() override { return store_.params(); }
  std::span<float> grad_slab() override { return store_.grad_slab(); }
  int vocab_size() const override { return config_.vocab_size; }
  int block_size() const override { return config_.block_size; }
  const ExecContext& exec() const override { return ctx_; }
  std::span<const kernels::WeightPairsWords> packed_weights() override;
  void packed_weights_renewed() override { pairs_at_ = store_.writes(); }

  // Where backward(ready)'s ranges cut grad_slab(), in floats: (L + 1) offsets, entry l where
  // block l's gradients begin and entry L where the tail's (ln_f, lm_head) begin; the embeddings
  // are [0, entry 0) and the tail [entry L, slab end). Each block's Params are contiguous in the
  // slab (the store lays them out in walk order), which the store checks when the model is built.
  const std::vector<size_t>& grad_ranges() const { return grad_cuts_; }
  // The Param with this checkpoint name ("blocks.0.attn.c_attn.weight"); Error if there is none.
  Param& param(const std::string& name);
  // Layer l's attention weights (B, NH, T, T) from the last forward, when that forward kept them
  // (the stored kernel: T below the ExecContext's fused_attention_min_T, or dropout); null when
  // the fused kernel ran, or in bf16 on cuda (the weights are kept in bf16 only there). Row t is
  // query position t's softmax over key positions 0..t.
  const float* attention_weights(int layer) const;
  // Layer l's q, k, v from the last forward, as its c_attn wrote them (B, T, 3C): q in columns
  // [0, C), k in [C, 2C), v in [2C, 3C), head h at h*HS within each (what the attention page
  // traces); and its heads' outputs, concatenated before c_proj (B, T, C).
  const float* attention_qkv(int layer) const;
  const float* attention_heads(int layer) const;

  // KV-cache inference, batch 1: tokens go in one at a time, each call costs O(t), not O(t^2).
  void reset_cache() override;
  const float* decode_step(int32_t token) override;
  // A prompt, or the context kept after a crop: each weight matrix is read once per kPrefillRows
  // tokens (GEMMs instead of matrix-vector products).
  const float* prefill(const int32_t* tokens, int n) override;
  static constexpr int kPrefillRows = 64;  // tokens per pass through the blocks
  int cache_len() const override { return cache_len_; }
  // Converts c_attn, c_proj, c_fc and lm_head's weights (a tied lm_head gets its own copy; wte
  // stays fp32 for the embedding lookup) and gives each converted fp32 weight's memory back to
  // the system (core/arena.h: release_pages): from then on the model decodes and evaluates only,
  // and cannot go back to fp32.
  void convert_weights(kernels::WeightFormat format) override;
  // Bytes of those weights as decoding reads them now (fp32: 4 per weight).
  int64_t linear_weight_bytes();

 private:
  GPTConfig config_;
  ExecContext ctx_;             // how every kernel call of this model runs
  bool fp32_released_ = false;  // convert_weights gave the fp32 Linear weights back
  int V = 0, C = 0, L = 0;

  // Modules (nanoGPT's transformer.{wte, wpe, drop, h, ln_f} and lm_head).
  Tensor wte, dwte;  // (V, C)
  Tensor wpe, dwpe;  // (block_size, C)
  Dropout emb_drop;
  std::vector<Block> blocks;
  LayerNorm ln_f;
  Linear lm_head;  // C -> V, no bias; its weight is wte when tied

  ParamStore store_;  // the Params: values, grads and both AdamW moments, one slab each
  std::vector<size_t> grad_cuts_;  // (L + 1) grad_ranges()
  template <class Fn>
  void for_each_linear(Fn fn) {  // every Linear: 4 per block, then lm_head
    for (Block& b : blocks)
      for (Linear* l : {&b.attn.c_attn, &b.attn.c_proj, &b.mlp.c_fc, &b.mlp.c_proj}) fn(*l);
    fn(lm_head);
  }

  // --dtype bf16 on the CPU: every Linear's weight packed for both of its products
  // (Linear::pairs), once after the values change (store_.writes() moved: a load, or an AdamW
  // step that did not pack them as it went, packed_weights()) instead of in every call. forward
  // and prefill call it first; elsewhere it does nothing.
  void pack_bf16_weights();
  Arena pairs_;  // the packed words, reserved by the first pack
  std::vector<kernels::WeightPairsWords> pair_words_;  // each Linear's, in for_each_linear order
  uint64_t pairs_at_ = ~uint64_t{0};                   // store_.writes() when they were packed

  // Activations, planned for (max_B_, max_T_), re-planned only when B or T grows.
  Arena acts_;
  int max_B_ = 0, max_T_ = 0;
  float* emb_ = nullptr;                 // (B, T, C)
  float* losses_ = nullptr;              // (B, T)
  float* probs_ = nullptr;               // (B, T, V), or null with:
  float* ce_stats_ = nullptr;            // (B, T, 2) (kernels::keeps_bf16_operands)
  float* dlosses_ = nullptr;             // (B, T)
  float* dlogits_ = nullptr;             // (B, T, V), or null with:
  uint16_t* dlogits16_ = nullptr;        // (B, T, V) in bf16 (kernels::keeps_bf16_operands)
  float* dlnf_ = nullptr;                // (B, T, C)
  float* dres_[2] = {nullptr, nullptr};  // (B, T, C) residual-stream gradients, ping-pong
  float* demb_ = nullptr;                // (B, T, C)
  int32_t* idx_ = nullptr;               // (B, T) copies of the last forward's inputs, in
  int32_t* targets_ = nullptr;           // the activation slab
  std::vector<float> host_losses_;       // (B, T) the losses, copied out to sum on the host
  int B_ = 0, T_ = 0;
  bool have_forward_ = false, have_targets_ = false;

  // KV cache for decode_step.
  Arena cache_;
  float* k_cache_ = nullptr;        // (L, block_size, C)
  float* v_cache_ = nullptr;        // (L, block_size, C)
  float* dec_x_ = nullptr;          // (kPrefillRows, C) the residual stream of the current tokens
  float* dec_work_ = nullptr;       // per-block work
  float* dec_logits_ = nullptr;     // (V)
  std::vector<float> host_logits_;  // (V) dec_logits_ copied out for the sampler
  int32_t* dec_tokens_ = nullptr;   // (kPrefillRows) the tokens of the current pass
  int cache_len_ = 0;

  void visit_params(ParamVisitor& v);
  // What backward(ready) finishes together, in slab order: wte and wpe, each block, the tail.
  std::vector<ParamStore::Group> backward_groups();
  void plan_activations(int B, int T);
  // Lays out the activation slab for (B, T) from base (counting when null); block scratch starts
  // at scratch_offset. Returns {end of per-layer activations, end of the shared scratch}.
  std::pair<size_t, size_t> layout(float* base, size_t scratch_offset, int B, int T);
  void allocate_cache();
};

// A GPT's parameters, names (as checkpoints have them) and shapes in order, without building the
// model: what import and export map to and from other formats.
std::vector<std::pair<std::string, std::vector<int64_t>>> gpt_param_shapes(const GPTConfig& config);

// nanoGPT's estimate of forward + backward FLOPs per token: 6 N + 12 L NH HS T, where N counts
// every parameter except wpe (wte once when tied). Used by benchmarks for MFU.
double gpt_flops_per_token(const GPTConfig& c, int T);

}  // namespace scratchgpt
