// linear.h: Linear, the fully connected layer y = x W^T + b (torch.nn.Linear, W is (OC, C)).
// Leaves out: owning memory (W and b point into the model's parameter slab, the output into its
// activation slab). Kernels: kernels::matmul_forward / matmul_backward; ref::matmul is the scalar
// twin.
#pragma once

#include <cstdint>
#include <string>

#include "core/exec_context.h"
#include "core/tensor.h"
#include "kernels/kernels.h"
#include "nn/param.h"
#include "nn/slab_planner.h"

namespace scratchgpt {

struct Linear {
  int C = 0;   // in features
  int OC = 0;  // out features
  bool has_bias = true;
  Tensor weight, dweight;  // (OC, C)
  Tensor bias, dbias;      // (OC), empty when !has_bias
  // The weight converted for inference (--weights bf16|int8): apply() reads it instead of weight;
  // format kFp32 (empty) means weight itself. forward/backward for training never set it.
  kernels::QuantizedWeight qweight;

  // Set by the owner's zero_grad() instead of clearing dW and db: the next backward writes them
  // (=) rather than adding, then clears this (GPT::zero_grad; PyTorch's set_to_none).
  bool dparams_unset = false;

  float* out = nullptr;        // (N, OC) planned activation
  const float* inp = nullptr;  // (N, C) saved by forward for backward
  int N = 0;
  // --dtype bf16 on cuda (plan_bf16): the bf16 copies of inp (N, C) and weight (OC, C) that
  // forward rounds and backward reads again (kernels::Bf16Keep); null otherwise.
  uint16_t* inp16 = nullptr;
  uint16_t* weight16 = nullptr;
  // --dtype bf16 on the CPU: the weight packed ahead for both products (GPT::pack_bf16_weights,
  // redone after the values change); all null: the products pack it in every call.
  kernels::WeightPairs pairs;

  Linear() = default;
  Linear(int in_features, int out_features, bool with_bias)
      : C(in_features), OC(out_features), has_bias(with_bias) {}

  void visit_params(const std::string& prefix, ParamVisitor& v) {
    v.visit(prefix + ".weight", weight, dweight, {OC, C}, /*decay=*/true);
    if (has_bias) v.visit(prefix + ".bias", bias, dbias, {OC}, /*decay=*/false);
  }
  void plan(SlabPlanner& acts, int max_N) { out = acts.take(static_cast<int64_t>(max_N) * OC); }
  // From acts, never scratch: they live from forward to backward (the owner's out may not).
  void plan_bf16(SlabPlanner& acts, int max_N) {
    inp16 = acts.take_bf16(static_cast<int64_t>(max_N) * C);
    weight16 = acts.take_bf16(static_cast<int64_t>(OC) * C);
  }

  // y (N, OC) = x (N, C) @ W^T + b, into y; saves nothing (used by KV-cache decoding) but the
  // bf16 copies in keep, when given.
  void apply(const ExecContext& ex, float* y, const float* x, int n,
             const kernels::Bf16Keep& keep = {}) const;
  // out = apply(x), saving x for backward. Returns out (N, OC).
  float* forward(const ExecContext& ex, const float* x, int n);
  // Writes dx (N, C) (may be null; never read, so it needs no clearing) and accumulates dW and
  // db (writes them when dparams_unset), from dout (N, OC), or from dout16, its bf16 copy made
  // by the producer (then dout may be null when there is no bias).
  void backward(const ExecContext& ex, float* dx, const float* dout,
                const uint16_t* dout16 = nullptr);
  const kernels::WeightPairs* packed_pairs() const {
    return pairs.wt.words || pairs.w16 ? &pairs : nullptr;
  }
};

}  // namespace scratchgpt
