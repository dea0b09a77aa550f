// adamw.cpp: cpu::adamw_update_all, and adamw_update as its one-array case (see adamw.h). AdamW
// streams four arrays and is memory-bound; the vector loops of simd/adamw_impl.h (AVX-512 or
// AVX2) keep it at the memory's speed instead of the scalar sqrt and divide's, and the reference
// does each chunk's last few elements.
#include "kernels/cpu/adamw.h"

#include <algorithm>
#include <cstdint>
#include <vector>

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

// Elements [b, e) of one array: the vector part, then the reference for what it leaves.
void adamw_range(SimdLevel isa, const AdamWArray& a, int64_t b, int64_t e, float lr, float beta1,
                 float beta2, float eps, int t, float grad_scale) {
  const auto vector_part = pick(isa, detail::adamw_avx512, detail::adamw_avx2, adamw_none);
  const AdamWScalars s(lr, beta1, beta2, a.weight_decay, t);
  const int64_t done = vector_part(a.param + b, a.grad + b, a.m + b, a.v + b, e - b, beta1, beta2,
                                   eps, s, grad_scale);
  ref::adamw_update(a.param + b + done, a.grad + b + done, a.m + b + done, a.v + b + done,
                    e - b - done, lr, beta1, beta2, eps, a.weight_decay, t, grad_scale);
}

}  // namespace

void adamw_update(const ExecContext& ex, float* param, const float* grad, float* m, float* v,
                  int64_t n, float lr, float beta1, float beta2, float eps, float weight_decay,
                  int t, float grad_scale) {
  const AdamWArray a{param, grad, m, v, n, weight_decay};
  adamw_update_all(ex, 1, &a, lr, beta1, beta2, eps, t, grad_scale);
}

void adamw_update_all(const ExecContext& ex, int count, const AdamWArray* arrays, float lr,
                      float beta1, float beta2, float eps, int t, float grad_scale) {
  struct Chunk {
    int array;
    int64_t begin, end;
  };
  thread_local std::vector<Chunk> chunks;  // grows once; no allocation in later steps
  chunks.clear();
  for (int a = 0; a < count; ++a)
    for (int64_t b = 0; b < arrays[a].n; b += detail::kChunk)
      chunks.push_back({a, b, std::min(b + detail::kChunk, arrays[a].n)});
  const Chunk* list = chunks.data();  // the caller's list (a worker's thread_local is its own)
  ex.workers().parallel_for(static_cast<int64_t>(chunks.size()), [&](int64_t b, int64_t e, int) {
    for (int64_t c = b; c < e; ++c)
      adamw_range(ex.isa, arrays[list[c].array], list[c].begin, list[c].end, lr, beta1, beta2, eps,
                  t, grad_scale);
  });
}

}  // namespace scratchgpt::cpu
