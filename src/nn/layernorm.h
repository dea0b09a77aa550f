// layernorm.h: LayerNorm over the last dimension (torch.nn.LayerNorm, eps 1e-5), with an optional
// bias as nanoGPT's LayerNorm(ndim, bias). Leaves out: owning memory (the weights live in the
// parameter slab, outputs in the activation slab). Kernels: kernels::layernorm_*; ref:: is the
// twin.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "core/exec_context.h"
#include "core/tensor.h"
#include "nn/param.h"
#include "nn/slab_planner.h"

namespace scratchgpt {

struct LayerNorm {
  int C = 0;
  bool has_bias = true;
  Tensor weight, dweight;  // (C)
  Tensor bias, dbias;      // (C), empty when !has_bias

  float* out = nullptr;        // (N, C) planned activation
  float* mean = nullptr;       // (N) saved for backward
  float* rstd = nullptr;       // (N) saved for backward
  const float* inp = nullptr;  // (N, C) saved by forward
  int N = 0;

  LayerNorm() = default;
  LayerNorm(int channels, bool with_bias);

  void visit_params(const std::string& prefix, ParamVisitor& v) {
    v.visit(prefix + ".weight", weight, dweight, {C}, /*decay=*/false);
    if (has_bias) v.visit(prefix + ".bias", bias, dbias, {C}, /*decay=*/false);
  }
  void plan(SlabPlanner& acts, int max_N);

  // y (n, C) = layernorm(x); mu, rs (n) receive mean and 1/std. Saves nothing. y16 not null
  // (cuda): y rounded to bf16 there instead, y unwritten.
  void apply(const ExecContext& ex, float* y, float* mu, float* rs, const float* x, int n,
             uint16_t* y16 = nullptr) const;
  // Returns out (N, C); or, given out16 (the next Linear's inp16: --dtype bf16 on cuda), writes
  // the output there in bf16 only and returns null, which that Linear's forward then takes.
  float* forward(const ExecContext& ex, const float* x, int n, uint16_t* out16 = nullptr);
  // Accumulates dx (N, C), dweight and dbias from dout (N, C).
  void backward(const ExecContext& ex, float* dx, const float* dout);

 private:
  // Without a bias the kernel is given zeros, and the bias gradient goes to a sink that no one
  // reads.
  std::vector<float> zero_bias_, dbias_sink_;  // (C)
};

}  // namespace scratchgpt
