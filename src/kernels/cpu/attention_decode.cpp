// attention_decode.cpp: see attention_decode.h. The chunks are the per-ISA kernels of
// simd/attention_decode_impl.h (AVX-512 or AVX2); the portable path is the readable loop below.
#include "kernels/cpu/attention_decode.h"

#include <algorithm>
#include <cmath>
#include <limits>

#include "core/check.h"
#include "core/thread_pool.h"
#include "kernels/cpu/simd/attention_decode_simd.h"
#include "kernels/cpu/simd/simd.h"

namespace scratchgpt::cpu {

namespace {

// Below this many cached floats (n_ctx * C) the chunks run on the caller: waking a worker costs
// more than the work.
constexpr int64_t kSerialFloats = 16 * 1024;

using ChunkFn = void (*)(const float*, const float*, const float*, int, int, int, float, float*,
                         int64_t, float*, float*);

// m cached rows k, v (m, C) against q (C), as detail::attention_decode_chunk_* (its header says
// what goes where), one value at a time.
void chunk_scalar(const float* q, const float* k, const float* v, int C, int NH, int m,
                  float scale, float* e, int64_t ld_e, float* stats, float* o) {
  const int HS = C / NH;
  for (int h = 0; h < NH; ++h) {
    float* eh = e + h * ld_e;  // (m)
    for (int t = 0; t < m; ++t) {  // scores[t] = q_h . k_h[t] / sqrt(HS)
      float s = 0.0f;
      for (int i = 0; i < HS; ++i) s += q[h * HS + i] * k[int64_t{t} * C + h * HS + i];
      eh[t] = s * scale;
    }
    const float mx = *std::max_element(eh, eh + m);
    float sum = 0.0f;
    for (int t = 0; t < m; ++t) sum += eh[t] = std::exp(eh[t] - mx);
    stats[2 * h] = mx, stats[2 * h + 1] = sum;
    for (int i = 0; i < HS; ++i) {  // o_h = sum_t e_h[t] v_h[t]
      float acc = 0.0f;
      for (int t = 0; t < m; ++t) acc += eh[t] * v[int64_t{t} * C + h * HS + i];
      o[h * HS + i] = acc;
    }
  }
}

}  // namespace

void attention_decode_forward(const ExecContext& ex, float* out, const float* q,
                              const float* k_cache, const float* v_cache, int n_ctx, int C, int NH,
                              float* scratch) {
  SG_CHECK(n_ctx >= 1 && NH >= 1 && C % NH == 0,
           "attention_decode_forward: bad shape n_ctx=", n_ctx, " C=", C, " NH=", NH);
  const int HS = C / NH;
  const float scale = 1.0f / std::sqrt(static_cast<float>(HS));
  const ChunkFn chunk = pick<ChunkFn>(ex.isa, detail::attention_decode_chunk_avx512,
                                      detail::attention_decode_chunk_avx2, chunk_scalar);
  const int chunks = (n_ctx + kDecodeChunk - 1) / kDecodeChunk;
  // Chunk c's scratch: e (NH, kDecodeChunk), stats (NH, 2), o (C).
  const int64_t per_chunk = int64_t{NH} * (kDecodeChunk + 2) + C;
  const int64_t stats_at = int64_t{NH} * kDecodeChunk, o_at = stats_at + 2 * NH;
  auto run = [&](int64_t b, int64_t e, int) {
    for (int64_t c = b; c < e; ++c) {
      float* s = scratch + c * per_chunk;
      const int64_t t0 = c * kDecodeChunk;
      chunk(q, k_cache + t0 * C, v_cache + t0 * C, C, NH,
            static_cast<int>(std::min<int64_t>(kDecodeChunk, n_ctx - t0)), scale, s, kDecodeChunk,
            s + stats_at, s + o_at);
    }
  };
  if (int64_t{n_ctx} * C < kSerialFloats || chunks == 1)
    run(0, chunks, 0);
  else
    ex.workers().parallel_for(chunks, run);
  // The chunks' softmaxes joined per head: with M the largest chunk max, chunk c weighs
  // f_c = exp(max_c - M) / sum_c' exp(max_c' - M) sum_c', and y_h = sum_c f_c o_c,h, c in order.
  for (int h = 0; h < NH; ++h) {
    const auto stat = [&](int c, int i) { return scratch[c * per_chunk + stats_at + 2 * h + i]; };
    float M = -std::numeric_limits<float>::infinity();
    for (int c = 0; c < chunks; ++c) M = std::max(M, stat(c, 0));
    float total = 0.0f;
    for (int c = 0; c < chunks; ++c) total += std::exp(stat(c, 0) - M) * stat(c, 1);
    float* y = out + h * HS;  // (HS)
    std::fill(y, y + HS, 0.0f);
    for (int c = 0; c < chunks; ++c) {
      const float f = std::exp(stat(c, 0) - M) / total;
      const float* o = scratch + c * per_chunk + o_at + h * HS;
      for (int i = 0; i < HS; ++i) y[i] += f * o[i];
    }
  }
}

}  // namespace scratchgpt::cpu
