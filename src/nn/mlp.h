// mlp.h: MLP, the feed-forward half of a Block as nanoGPT's: c_fc C -> 4C, ReLU (the lecture),
// GELU tanh (GPT-2) or exact GELU (nanoGPT's nn.GELU()), c_proj 4C -> C, dropout.
// Leaves out: owning memory, other activations.
#pragma once

#include <cstdint>
#include <string>

#include "core/exec_context.h"
#include "core/rng.h"
#include "nn/dropout.h"
#include "nn/gpt_config.h"
#include "nn/linear.h"
#include "nn/param.h"
#include "nn/slab_planner.h"

namespace scratchgpt {

struct MLP {
  int C = 0;
  Activation activation = Activation::kRelu;
  Linear c_fc;    // C -> 4C
  Linear c_proj;  // 4C -> C
  Dropout drop;

  float* act = nullptr;   // (B, T, 4C) activation output (per layer; c_proj.out is scratch)
  float* dact = nullptr;  // (B, T, 4C) scratch shared by every layer
  float* dfc = nullptr;   // (B, T, 4C) scratch
  // --dtype bf16 on cuda (set before planning, with the Linears' plan_bf16): the activation is
  // written only in bf16, into c_proj.inp16 (act not planned), and its gradient also in bf16
  // (dfc16, scratch) for c_fc's backward.
  bool keep_bf16 = false;
  uint16_t* dfc16 = nullptr;
  float* dproj = nullptr;  // (B, T, C) scratch
  int N = 0;

  MLP() = default;
  MLP(int n_embd, Activation kind, bool bias, float dropout);

  void visit_params(const std::string& prefix, ParamVisitor& v) {
    c_fc.visit_params(prefix + ".c_fc", v);
    c_proj.visit_params(prefix + ".c_proj", v);
  }
  void plan(SlabPlanner& acts, SlabPlanner& scratch, int max_N);

  const float* forward(const ExecContext& ex, const float* x, int n,
                       Rng* rng);                                      // x (N, C) -> (N, C)
  void backward(const ExecContext& ex, float* dx, const float* dout);  // writes dx (N, C)

  // n rows, no saving (KV-cache decoding): out (n, C) from x (n, C); work needs 8C * n floats.
  void decode(const ExecContext& ex, float* out, const float* x, int n, float* work) const;
};

}  // namespace scratchgpt
