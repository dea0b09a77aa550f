// attention_decode.cpp: see attention_decode.h.
#include "kernels/cpu/attention_decode.h"

#include <cmath>

#include "core/check.h"
#include "core/thread_pool.h"
#include "kernels/cpu/matvec.h"
#include "kernels/cpu/softmax.h"

namespace scratchgpt::cpu {

namespace {

// Below this many cached floats (n_ctx * C) the heads run on the caller: waking a worker costs
// more than the work.
constexpr int64_t kSerialFloats = 16 * 1024;

// One head h: out[h*HS : (h+1)*HS] from the cache; scores and weights (n_ctx) are its own scratch.
void decode_head(const ExecContext& ex, float* out, const float* q, const float* k_cache,
                 const float* v_cache, int n_ctx, int C, int HS, int h, float* scores,
                 float* weights) {
  const float scale = 1.0f / std::sqrt(static_cast<float>(HS));
  // scores[t2] = q_h . k_h[t2], for every cached t2 <= pos (the causal mask leaves nothing else)
  matvec_forward_serial(ex.isa, scores, q + h * HS, k_cache + h * HS, C, nullptr, 1, HS, n_ctx);
  for (int t2 = 0; t2 < n_ctx; ++t2) scores[t2] *= scale;  // / sqrt(HS)
  softmax_forward(ex, weights, scores, 1, n_ctx);          // one row: runs on this thread
  // y_h = sum_t2 weights[t2] v_h[t2], t2 in order
  float* o = out + h * HS;  // (HS)
  for (int i = 0; i < HS; ++i) o[i] = 0.0f;
  for (int t2 = 0; t2 < n_ctx; ++t2) {
    const float wt = weights[t2];
    const float* v = v_cache + int64_t{t2} * C + h * HS;  // (HS)
    for (int i = 0; i < HS; ++i) o[i] += wt * v[i];
  }
}

}  // namespace

void attention_decode_forward(const ExecContext& ex, float* out, const float* q,
                              const float* k_cache, const float* v_cache, int n_ctx, int C, int NH,
                              float* scratch) {
  SG_CHECK(n_ctx >= 1 && NH >= 1 && C % NH == 0,
           "attention_decode_forward: bad shape n_ctx=", n_ctx, " C=", C, " NH=", NH);
  const int HS = C / NH;
  const int64_t per_head = 2 * (int64_t{n_ctx} + 16);  // scores and weights of one head
  auto heads = [&](int64_t b, int64_t e, int) {
    for (int64_t h = b; h < e; ++h) {
      float* scores = scratch + h * per_head;
      decode_head(ex, out, q, k_cache, v_cache, n_ctx, C, HS, static_cast<int>(h), scores,
                  scores + n_ctx + 16);
    }
  };
  if (int64_t{n_ctx} * C < kSerialFloats || NH == 1)
    heads(0, NH, 0);
  else
    ex.workers().parallel_for(NH, heads);
}

}  // namespace scratchgpt::cpu
