// gelu.cpp: cpu::gelu_* (see gelu.h): the per-ISA kernels of gelu_impl.h (gelu_avx2.cpp,
// gelu_avx512.cpp) or the reference loop, threaded over fixed chunks.
#include "kernels/cpu/gelu.h"

#include <cstdint>

#include "kernels/cpu/parallel.h"
#include "kernels/cpu/simd.h"
#include "kernels/ref/gelu.h"

namespace scratchgpt::cpu {

namespace {

using ForwardFn = void (*)(float*, const float*, int64_t);
using BackwardFn = void (*)(float*, const float*, const float*, int64_t);

ForwardFn forward_fn() {
  switch (simd_level()) {
    case SimdLevel::kAvx512:
      return detail::gelu_forward_avx512;
    case SimdLevel::kAvx2:
      return detail::gelu_forward_avx2;
    case SimdLevel::kScalar:
      break;
  }
  return ref::gelu_forward<float>;
}

BackwardFn backward_fn() {
  switch (simd_level()) {
    case SimdLevel::kAvx512:
      return detail::gelu_backward_avx512;
    case SimdLevel::kAvx2:
      return detail::gelu_backward_avx2;
    case SimdLevel::kScalar:
      break;
  }
  return ref::gelu_backward<float>;
}

}  // namespace

void gelu_forward(float* out, const float* inp, int64_t n) {
  const ForwardFn fn = forward_fn();
  detail::for_chunks(n, [&](int64_t b, int64_t e) { fn(out + b, inp + b, e - b); });
}

void gelu_backward(float* dinp, const float* inp, const float* dout, int64_t n) {
  const BackwardFn fn = backward_fn();
  detail::for_chunks(n, [&](int64_t b, int64_t e) { fn(dinp + b, inp + b, dout + b, e - b); });
}

}  // namespace scratchgpt::cpu
