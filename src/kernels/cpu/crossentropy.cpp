// crossentropy.cpp: cpu::crossentropy_forward/backward (see crossentropy.h): softmax and the
// loss in log-sum-exp form per row, one thread per row. The rows are the per-ISA kernels of
// simd/crossentropy_impl.h (AVX-512 or AVX2); the portable path calls the reference.
#include "kernels/cpu/crossentropy.h"

#include <cstdint>

#include "kernels/cpu/parallel.h"
#include "kernels/cpu/simd/crossentropy_simd.h"
#include "kernels/cpu/simd/simd.h"
#include "kernels/ref/crossentropy.h"

namespace scratchgpt::cpu {

namespace {

// The portable rows: the reference on one row.
void crossentropy_row_scalar(float* loss, float* p, const float* x, int target, int V) {
  ref::crossentropy_forward(loss, p, x, &target, 1, V);
}

void crossentropy_back_row_scalar(float* d, const float* p, int target, float k, int V) {
  ref::crossentropy_backward(d, p, &target, &k, 1, V);
}

}  // namespace

void crossentropy_forward(const ExecContext& ex, float* losses, float* probs, const float* logits,
                          const int32_t* targets, int N, int V) {
  const auto row = pick(ex.isa, detail::crossentropy_row_avx512, detail::crossentropy_row_avx2,
                        crossentropy_row_scalar);
  detail::for_rows(ex.workers(), N, V, [&](int64_t r0, int64_t r1) {
    for (int64_t n = r0; n < r1; ++n)
      row(losses + n, probs + n * V, logits + n * V, targets[n], V);
  });
}

void crossentropy_backward(const ExecContext& ex, float* dlogits, const float* probs,
                           const int32_t* targets, const float* dlosses, int N, int V) {
  const auto row = pick(ex.isa, detail::crossentropy_back_row_avx512,
                        detail::crossentropy_back_row_avx2, crossentropy_back_row_scalar);
  detail::for_rows(ex.workers(), N, V, [&](int64_t r0, int64_t r1) {
    for (int64_t n = r0; n < r1; ++n)
      row(dlogits + n * V, probs + n * V, targets[n], dlosses[n], V);
  });
}

}  // namespace scratchgpt::cpu
