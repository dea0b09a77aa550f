// adamw.cpp: cpu::adamw_update (see adamw.h). AdamW streams four arrays and is memory-bound; the
// vector loops of simd/adamw_impl.h (AVX-512 or AVX2) keep it at the memory's speed instead of
// the scalar sqrt and divide's, and the reference does each chunk's last few elements.
#include "kernels/cpu/adamw.h"

#include <cstdint>

#include "kernels/cpu/parallel.h"
#include "kernels/cpu/simd/adamw_simd.h"
#include "kernels/cpu/simd/simd.h"
#include "kernels/ref/adamw.h"

namespace scratchgpt::cpu {

namespace {

using AdamWScalars = ref::AdamWScalars<float>;

// The portable path has no vector part: the reference does every element.
int64_t adamw_none(float*, const float*, float*, float*, int64_t, float, float, float,
                   const AdamWScalars&, float) {
  return 0;
}

}  // namespace

void adamw_update(const ExecContext& ex, float* param, const float* grad, float* m, float* v,
                  int64_t n, float lr, float beta1, float beta2, float eps, float weight_decay,
                  int t, float grad_scale) {
  const auto vector_part = pick(ex.isa, detail::adamw_avx512, detail::adamw_avx2, adamw_none);
  const AdamWScalars s(lr, beta1, beta2, weight_decay, t);
  detail::for_chunks(ex.workers(), n, [&](int64_t b, int64_t e) {
    const int64_t done =
        vector_part(param + b, grad + b, m + b, v + b, e - b, beta1, beta2, eps, s, grad_scale);
    ref::adamw_update(param + b + done, grad + b + done, m + b + done, v + b + done, e - b - done,
                      lr, beta1, beta2, eps, weight_decay, t, grad_scale);
  });
}

}  // namespace scratchgpt::cpu
