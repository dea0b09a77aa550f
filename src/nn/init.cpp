// init.cpp: nn.Linear / nn.Embedding default initialisations via Rng, with the bounds computed in
// double exactly as torch.nn.init computes them in Python.
#include "nn/init.h"

#include <cmath>

#include "core/check.h"

namespace scratchgpt {

void init_linear(Rng& rng, float* weight, float* bias, int OC, int C) {
  SG_CHECK(OC > 0 && C > 0, "init_linear: need positive sizes, got OC=", OC, " C=", C);
  // kaiming_uniform_(weight, a=math.sqrt(5)): gain = calculate_gain('leaky_relu', a)
  //   = math.sqrt(2.0 / (1 + a ** 2)); std = gain / math.sqrt(fan_in); bound = math.sqrt(3.0) * std
  const double a = std::sqrt(5.0);
  const double gain = std::sqrt(2.0 / (1.0 + std::pow(a, 2.0)));
  const double std_w = gain / std::sqrt(static_cast<double>(C));
  const double bound_w = std::sqrt(3.0) * std_w;
  init_uniform(rng, weight, static_cast<int64_t>(OC) * C, -bound_w, bound_w);
  if (bias != nullptr) {
    const double bound_b = 1.0 / std::sqrt(static_cast<double>(C));  // 1 / math.sqrt(fan_in)
    init_uniform(rng, bias, OC, -bound_b, bound_b);
  }
}

void init_embedding(Rng& rng, float* weight, int V, int C) {
  SG_CHECK(V > 0 && C > 0, "init_embedding: need positive sizes, got V=", V, " C=", C);
  init_normal(rng, weight, static_cast<int64_t>(V) * C, 0.0, 1.0);
}

void init_normal(Rng& rng, float* w, int64_t n, double mean, double std) {
  rng.normal(w, n, mean, std);
}

void init_uniform(Rng& rng, float* w, int64_t n, double from, double to) {
  // torch casts the Python-float bounds to the tensor's dtype before drawing.
  rng.uniform(w, n, static_cast<float>(from), static_cast<float>(to));
}

}  // namespace scratchgpt
