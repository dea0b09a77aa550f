// global_norm.h: the global L2 norm of several arrays taken together, sqrt(sum of every element
// squared), as torch.nn.utils.clip_grad_norm_ measures the gradients: the scalar reference, summed
// in double in one pass. Fast twin: kernels/cpu/global_norm.h (fixed pieces, threaded).
#pragma once

#include <cmath>
#include <cstdint>

namespace scratchgpt::ref {

// x[a] holds n[a] elements, for a in [0, count).
template <typename F>
double global_norm(int count, const F* const* x, const int64_t* n) {
  double sum = 0;
  for (int a = 0; a < count; ++a)
    for (int64_t i = 0; i < n[a]; ++i) sum += static_cast<double>(x[a][i]) * x[a][i];
  return std::sqrt(sum);
}

}  // namespace scratchgpt::ref
