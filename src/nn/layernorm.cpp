// layernorm.cpp: LayerNorm forward and backward over cpu::layernorm.
#include "nn/layernorm.h"

#include "kernels/kernels.h"

namespace scratchgpt {

LayerNorm::LayerNorm(int channels, bool with_bias) : C(channels), has_bias(with_bias) {
  if (!has_bias) {
    zero_bias_.assign(static_cast<size_t>(C), 0.0f);
    dbias_sink_.assign(static_cast<size_t>(C), 0.0f);
  }
}

void LayerNorm::plan(SlabPlanner& acts, int max_N) {
  out = acts.take(static_cast<int64_t>(max_N) * C);
  mean = acts.take(max_N);
  rstd = acts.take(max_N);
}

void LayerNorm::apply(const ExecContext& ex, float* y, float* mu, float* rs, const float* x, int n,
                      uint16_t* y16) const {
  // Without a bias the GPU's kernels take null; the CPU's read zeros (and add into a sink).
  const float* b = has_bias ? bias.data : kernels::on_cuda(ex) ? nullptr : zero_bias_.data();
  kernels::layernorm_forward(ex, y, mu, rs, x, weight.data, b, n, C, 1e-5f, y16);
}

float* LayerNorm::forward(const ExecContext& ex, const float* x, int n, uint16_t* out16) {
  inp = x;
  N = n;
  float* y = out16 == nullptr ? out : nullptr;
  apply(ex, y, mean, rstd, x, n, out16);  // out = (x - mean) * rstd * weight + bias
  return y;
}

void LayerNorm::backward(const ExecContext& ex, float* dx, const float* dout) {
  // out = xhat * weight + bias, xhat = (x - mean) * rstd:
  //   dbias += sum dout;  dweight += sum dout * xhat;  dx += rstd (g - mean(g) - xhat mean(g xhat))
  float* db = has_bias ? dbias.data : kernels::on_cuda(ex) ? nullptr : dbias_sink_.data();
  kernels::layernorm_backward(ex, dx, dweight.data, db, dout, inp, weight.data, mean, rstd, N, C);
}

}  // namespace scratchgpt
