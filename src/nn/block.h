// block.h: Block, one transformer layer (pre-norm, as nanoGPT and the lecture):
//   x = x + attn(ln_1(x));  x = x + mlp(ln_2(x))
// Leaves out: owning memory (activations per layer in the model's slab, backward scratch shared).
#pragma once

#include <cstdint>
#include <string>

#include "core/exec_context.h"
#include "core/rng.h"
#include "nn/causal_self_attention.h"
#include "nn/gpt_config.h"
#include "nn/layernorm.h"
#include "nn/mlp.h"
#include "nn/param.h"
#include "nn/slab_planner.h"

namespace scratchgpt {

struct Block {
  LayerNorm ln_1;
  CausalSelfAttention attn;
  LayerNorm ln_2;
  MLP mlp;

  float* x1 = nullptr;   // (B, T, C) x + attn(ln_1(x)), per layer
  float* x2 = nullptr;   // (B, T, C) the block's output, per layer
  float* dln = nullptr;  // (B, T, C) scratch shared by every layer
  int C = 0, B = 0, T = 0;

  Block() = default;
  explicit Block(const GPTConfig& config);

  void visit_params(const std::string& prefix, ParamVisitor& v) {
    ln_1.visit_params(prefix + ".ln_1", v);
    attn.visit_params(prefix + ".attn", v);
    ln_2.visit_params(prefix + ".ln_2", v);
    mlp.visit_params(prefix + ".mlp", v);
  }
  void plan(SlabPlanner& acts, SlabPlanner& scratch, int max_B, int max_T);

  const float* forward(const ExecContext& ex, const float* x, int b, int t,
                       Rng* rng);  // (B, T, C) -> (B, T, C)
  // Writes dx (B, T, C) (not accumulated: each block's input gradient has one source); dx and
  // dout must not overlap.
  void backward(const ExecContext& ex, float* dx, const float* dout);

  // n tokens at positions pos..pos+n-1 for batch 1 with the KV cache: x (n, C) updated in place;
  // work: decode_work_floats(pos + n, n) floats.
  void decode(const ExecContext& ex, float* x, float* k_cache, float* v_cache, int pos, int n,
              float* work) const;
  int64_t decode_work_floats(int max_T, int max_n) const;
};

}  // namespace scratchgpt
