// linear.cpp: Linear forward and backward over cpu::matmul.
#include "nn/linear.h"

#include "kernels/cpu/matmul.h"

namespace scratchgpt {

void Linear::apply(float* y, const float* x, int n) const {
  cpu::matmul_forward(y, x, weight.data, has_bias ? bias.data : nullptr, n, C, OC);
}

float* Linear::forward(const float* x, int n) {
  inp = x;
  N = n;
  apply(out, x, n);  // out = x W^T + b
  return out;
}

void Linear::backward(float* dx, const float* dout) {
  // out = x W^T + b:  dx += dout W;  dW += dout^T x;  db += sum_n dout
  cpu::matmul_backward(dx, dweight.data, has_bias ? dbias.data : nullptr, dout, inp, weight.data, N,
                       C, OC);
}

}  // namespace scratchgpt
