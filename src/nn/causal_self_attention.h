// causal_self_attention.h: CausalSelfAttention as nanoGPT's: one fused Linear C -> 3C makes q, k, v
// for all NH heads, the causal attention kernel (dropout on the weights), then c_proj C -> C and
// residual dropout. Leaves out: owning memory. Simpler twins: src/stones/head.h and
// stones/multi_head_attention.h (the lecture's one-module-per-head form).
#pragma once

#include <cstdint>
#include <string>

#include "core/exec_context.h"
#include "core/rng.h"
#include "kernels/kernels.h"
#include "nn/dropout.h"
#include "nn/linear.h"
#include "nn/param.h"
#include "nn/slab_planner.h"

namespace scratchgpt {

struct CausalSelfAttention {
  int C = 0, NH = 0;
  Linear c_attn;  // C -> 3C: q, k, v side by side, each split into NH heads of HS = C/NH
  Linear c_proj;  // C -> C
  Dropout attn_drop, resid_drop;

  // Two attention kernels. Stored (kernels::attention_*): keeps the (B, NH, T, T) weights for
  // backward; needed for dropout on the weights, and the faster one at short contexts. Fused
  // (kernels::flash_attention_*): keeps only the row log-sum-exp and recomputes the weights in
  // backward, so nothing T x T is stored. Forward takes the fused one when the weights are not
  // dropped (dropout 0, or eval mode) and T >= fused_min_T, or when no T x T buffer was planned.
  // fused_min_T comes from the model's ExecContext (fused_attention_min_T, default 1024), so tests
  // can force either kernel; it is set before the model plans its memory. Why 1024:
  // bench/attention_bench, GPT-2 heads (HS = 64), 2 threads, forward + backward: T = 512 fused
  // 19.7 ms vs stored 17.0 (its backward does 5 tile products to the stored 4, and recomputes
  // exp); T = 1024 fused 69.7 vs 73.8. At T = 64 (the small presets) stored wins.
  int fused_min_T = ExecContext().fused_attention_min_T;
  // plan() reserves att (B, NH, T, T) only when some forward may need it: dropout > 0, or a
  // planned T below fused_min_T; otherwise it stays nullptr. The stored kernel's other T x T
  // tensors (the scores and the gradients) are not kept: it holds them a head at a time.
  bool fused = false;  // the last forward took the fused kernel
  // --dtype bf16 on cuda (set, like fused_min_T, before planning): plan() also reserves the bf16
  // copies of qkv and att that the stored kernel's forward makes and its backward reads again.
  bool keep_bf16 = false;

  // Per-layer activations (B, T as last planned).
  float* att = nullptr;  // (B, NH, T, T) softmax weights, saved for backward (stored kernel)
  float* lse = nullptr;  // (B, NH, T) row log-sum-exp of the scores, saved for backward (fused)
  float* y = nullptr;    // (B, T, C) heads concatenated
  uint16_t* qkv16 = nullptr;   // (B, T, 3C) bf16 copy of c_attn.out (keep_bf16, stored kernel)
  uint16_t* att16 = nullptr;   // (B, NH, T, T) the weights in bf16 (likewise); att then keeps
  float* att_stats = nullptr;  // the scores, and this (B, NH, T, 2) each row's max and 1 / sum
  // Scratch shared by every layer (forward-only c_proj output, backward gradients).
  float* dqkv = nullptr;   // (B, T, 3C)
  float* dy = nullptr;     // (B, T, C)
  float* dproj = nullptr;  // (B, T, C)
  int B = 0, T = 0;

  CausalSelfAttention() = default;
  CausalSelfAttention(int n_embd, int n_head, bool bias, float dropout);

  void visit_params(const std::string& prefix, ParamVisitor& v) {
    c_attn.visit_params(prefix + ".c_attn", v);
    c_proj.visit_params(prefix + ".c_proj", v);
  }
  void plan(SlabPlanner& acts, SlabPlanner& scratch, int max_B, int max_T);

  // x (B, T, C) -> (B, T, C); rng non-null means training (dropout).
  const float* forward(const ExecContext& ex, const float* x, int b, int t, Rng* rng);
  // Writes dx (B, T, C) and accumulates the parameter grads, from dout (B, T, C).
  void backward(const ExecContext& ex, float* dx, const float* dout);

  // n new tokens at positions pos..pos+n-1 for batch 1, reading and extending the KV cache:
  // out (n, C) from x (n, C); k_cache, v_cache (block_size, C) hold positions 0..pos-1 and get
  // rows pos..pos+n-1; work needs decode_work_floats(pos + n, n) floats. Costs O((pos + n) C n).
  void decode(const ExecContext& ex, float* out, const float* x, float* k_cache, float* v_cache,
              int pos, int n, float* work) const;
  int64_t decode_work_floats(int max_T, int max_n) const {
    return 4 * static_cast<int64_t>(C) * max_n +
           kernels::attention_decode_scratch_floats(max_T, C, NH);
  }
};

}  // namespace scratchgpt
