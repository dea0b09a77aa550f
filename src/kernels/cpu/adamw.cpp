// adamw.cpp: cpu::adamw_update_all, and adamw_update as its one-array case (see adamw.h). AdamW
// streams four arrays and is memory-bound; the vector loops of simd/adamw_impl.h (AVX-512 or
// AVX2) keep it at the memory's speed instead of the scalar sqrt and divide's, and the reference
// does each chunk's last few elements.
// With more than one thread the new parameters are written with non-temporal stores. Every thread
// of the step's matrix products read the weights, so their cache lines sit shared in every core's
// cache, and a plain store must first take its line back from the other cores. How much that
// costs depends on where the host puts the two vCPUs: on the 2-vCPU Zen 4, for 3.2 MB of lines the
// other core had read, 0.70-1.34 ms in one hour and 0.16 ms in the next (0.04-0.05 ms for lines no
// other core holds). A streamed store does not wait for the other copies: in the slow hour the
// small model's optimizer step went 1.51 -> 0.23 ms at two threads and its training step 23.4 ->
// 22.0 ms (scratchgpt bench, alternated); in the fast hour both stayed within 0.03 ms, and GPT-2
// small's, whose 500 MB of weights never stay in cache, within its noise. On one thread no other
// core holds the lines, and streaming them out of the cache made the next forward read them from
// memory (1% slower): plain stores there. The stored bits are the same either way.
#include "kernels/cpu/adamw.h"

#include <algorithm>
#include <cstdint>
#include <vector>

#include "core/check.h"
#include "kernels/cpu/parallel.h"
#include "kernels/cpu/simd/adamw_simd.h"
#include "kernels/cpu/simd/simd.h"
#include "kernels/ref/adamw.h"

namespace scratchgpt::cpu {

namespace {

using AdamWScalars = ref::AdamWScalars<float>;

// The portable path has no vector part: the reference does every element.
int64_t adamw_none(float*, const float*, float*, float*, int64_t, float, float, float,
                   const AdamWScalars&, float, bool) {
  return 0;
}

// Elements [b, e) of one array: the vector part, then the reference for what it leaves.
void adamw_range(SimdLevel isa, const AdamWArray& a, int64_t b, int64_t e, float lr, float beta1,
                 float beta2, float eps, int t, float grad_scale, bool stream_param) {
  const auto vector_part = pick(isa, detail::adamw_avx512, detail::adamw_avx2, adamw_none);
  const AdamWScalars s(lr, beta1, beta2, a.weight_decay, t);
  const int64_t done = vector_part(a.param + b, a.grad + b, a.m + b, a.v + b, e - b, beta1, beta2,
                                   eps, s, grad_scale, stream_param);
  if (done < e - b)
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
  for (int a = 0; a < count; ++a) {
    const AdamWArray& x = arrays[a];
    int64_t step = detail::kChunk;
    if (x.pairs) {  // a block of whole rows (48 on the AVX-512 path) to pack
      SG_CHECK(x.pairs->weight == x.param && int64_t{x.pairs->OC} * x.pairs->C == x.n,
               "adamw_update_all: the packed weight is not the array's");
      step = int64_t{matmul_weight_row_block(ex, x.pairs->OC)} * x.pairs->C;
    }
    for (int64_t b = 0; b < x.n; b += step) chunks.push_back({a, b, std::min(b + step, x.n)});
  }
  // The chunks differ in size (a packed weight's blocks of rows: 37K or 147K floats for GPT-2
  // small's, the others' 16K): each thread takes a run of them holding about an equal share of the
  // elements, not of the chunks (by count, one of two threads got 81M of GPT-2's 124M).
  const int threads = ex.threads();
  thread_local std::vector<size_t> cuts;  // thread w's chunks: [cuts[w], cuts[w + 1])
  cuts.assign(static_cast<size_t>(threads) + 1, chunks.size());
  int64_t total = 0;
  for (const Chunk& c : chunks) total += c.end - c.begin;
  int64_t start = 0;
  int w = 0;
  for (size_t i = 0; i < chunks.size(); ++i) {
    while (w < threads && start * threads >= total * w) cuts[size_t(w++)] = i;
    start += chunks[i].end - chunks[i].begin;
  }
  const Chunk* list = chunks.data();  // the caller's lists (a worker's thread_local is its own)
  const size_t* cut = cuts.data();
  // See the top of this file; a weight packed next is read back at once: from the cache.
  const bool stream_param = threads > 1;
  ex.workers().parallel_for(threads, [&](int64_t b, int64_t e, int) {
    for (size_t i = cut[b]; i < cut[e]; ++i) {
      const Chunk& c = list[i];
      const AdamWArray& x = arrays[c.array];
      adamw_range(ex.isa, x, c.begin, c.end, lr, beta1, beta2, eps, t, grad_scale,
                  stream_param && !x.pairs);
      if (x.pairs)
        matmul_pack_weight_bf16_rows(ex, x.param, x.pairs->C, x.pairs->OC, x.pairs->words,
                                     static_cast<int>(c.begin / x.pairs->C),
                                     static_cast<int>(c.end / x.pairs->C));
    }
  });
}

}  // namespace scratchgpt::cpu
