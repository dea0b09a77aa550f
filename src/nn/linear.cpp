// linear.cpp: Linear forward and backward over cpu::matmul.
#include "nn/linear.h"

#include "core/check.h"
#include "kernels/kernels.h"

namespace scratchgpt {

void Linear::apply(const ExecContext& ex, float* y, const float* x, int n,
                   const kernels::Bf16Keep& keep) const {
  if (qweight.format != kernels::WeightFormat::kFp32)
    return kernels::quant_matvec_forward(ex, y, x, qweight, has_bias ? bias.data : nullptr, n);
  kernels::matmul_forward(ex, y, x, weight.data, has_bias ? bias.data : nullptr, n, C, OC, keep,
                          packed_pairs());
}

float* Linear::forward(const ExecContext& ex, const float* x, int n) {
  inp = x;
  N = n;
  apply(ex, out, x, n, {inp16, weight16});  // out = x W^T + b
  return out;
}

void Linear::backward(const ExecContext& ex, float* dx, const float* dout, const uint16_t* dout16) {
  SG_CHECK(qweight.format == kernels::WeightFormat::kFp32,
           "Linear::backward: the weights were converted for inference (--weights): train in fp32");
  // out = x W^T + b:  dx = dout W;  dW += dout^T x;  db += sum_n dout  (= when dparams_unset)
  kernels::matmul_backward(ex, dx, dweight.data, has_bias ? dbias.data : nullptr, dout, inp,
                           weight.data, N, C, OC, /*accumulate_dinp=*/false,
                           /*accumulate_dparams=*/!dparams_unset, {inp16, weight16, dout16},
                           packed_pairs());
  dparams_unset = false;
}

}  // namespace scratchgpt
