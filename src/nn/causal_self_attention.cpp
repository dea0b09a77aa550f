// causal_self_attention.cpp: forward, backward and KV-cache decoding of CausalSelfAttention.
#include "nn/causal_self_attention.h"

#include <algorithm>
#include <cmath>

#include "kernels/kernels.h"

namespace scratchgpt {

CausalSelfAttention::CausalSelfAttention(int n_embd, int n_head, bool bias, float dropout)
    : C(n_embd),
      NH(n_head),
      c_attn(n_embd, 3 * n_embd, bias),
      c_proj(n_embd, n_embd, bias),
      attn_drop(dropout),
      resid_drop(dropout) {}

void CausalSelfAttention::plan(SlabPlanner& acts, SlabPlanner& scratch, int max_B, int max_T) {
  const int64_t N = static_cast<int64_t>(max_B) * max_T;
  const int64_t A = static_cast<int64_t>(max_B) * NH * max_T * max_T;
  // The T x T weights only if the stored kernel may run (see fused_min_T in the header).
  const bool stored = attn_drop.p > 0.0f || max_T < fused_min_T;
  c_attn.plan(acts, static_cast<int>(N));
  att = stored ? acts.take(A) : nullptr;
  qkv16 = stored && keep_bf16 ? acts.take_bf16(N * 3 * C) : nullptr;
  att16 = stored && keep_bf16 ? acts.take_bf16(A) : nullptr;
  att_stats = stored && keep_bf16 ? acts.take(int64_t{max_B} * NH * max_T * 2) : nullptr;
  lse = acts.take(static_cast<int64_t>(max_B) * NH * max_T);
  attn_drop.plan(acts, acts, A, /*mask_only=*/true);
  y = acts.take(N * C);
  // The projection and its dropped copy only feed the residual add: shared scratch.
  c_proj.plan(scratch, static_cast<int>(N));
  resid_drop.plan(acts, scratch, N * C);
  dqkv = scratch.take(N * 3 * C);
  dy = scratch.take(N * C);
  dproj = scratch.take(N * C);
}

const float* CausalSelfAttention::forward(const ExecContext& ex, const float* x, int b, int t,
                                          Rng* rng) {
  B = b;
  T = t;
  const int N = B * T;
  const float* qkv = c_attn.forward(ex, x, N);                            // (B, T, 3C)
  const float* drop = attn_drop.draw_mask(int64_t{B} * NH * T * T, rng);  // (B, NH, T, T) or null
  fused = drop == nullptr && (att == nullptr || T >= fused_min_T);
  if (fused)
    kernels::flash_attention_forward(ex, y, lse, qkv, B, T, C, NH);  // y (B, T, C), lse (B, NH, T)
  else
    kernels::attention_forward(ex, y, nullptr, att, qkv, drop, B, T, C, NH,
                               {qkv16, att16, nullptr, att_stats});  // y (B, T, C)
  const float* proj = c_proj.forward(ex, y, N);                      // (B, T, C)
  return resid_drop.forward(ex, proj, int64_t{N} * C, rng);          // (B, T, C)
}

void CausalSelfAttention::backward(const ExecContext& ex, float* dx, const float* dout) {
  // return resid_dropout(proj)
  const float* dp = resid_drop.backward(ex, dproj, dout);  // (B, T, C)
  // proj = c_proj(y)
  c_proj.backward(ex, dy, dp);  // writes dy
  // y = softmax(q k^T / sqrt(HS), causal) [* attn_dropout mask] @ v, per head; writes dqkv
  if (fused) {
    kernels::flash_attention_backward(ex, dqkv, dy, y, lse, c_attn.out, B, T, C, NH);
  } else {
    const float* drop = attn_drop.active ? attn_drop.mask : nullptr;
    kernels::attention_backward(ex, dqkv, nullptr, nullptr, dy, c_attn.out, att, drop, B, T, C, NH,
                                {qkv16, att16, nullptr, att_stats});
  }
  // qkv = c_attn(x)
  c_attn.backward(ex, dx, dqkv);  // writes dx
}

void CausalSelfAttention::decode(const ExecContext& ex, float* out, const float* x, float* k_cache,
                                 float* v_cache, int pos, int n, float* work) const {
  float* qkv = work;                      // (n, 3C)
  float* yy = work + int64_t{n} * 3 * C;  // (n, C)
  float* scratch = yy + int64_t{n} * C;  // kernels::attention_decode_scratch_floats(pos + n, C, NH)
  c_attn.apply(ex, qkv, x, n);           // qkv = c_attn(x)
  for (int i = 0; i < n; ++i) {          // append k and v of every new token
    const float* row = qkv + int64_t{i} * 3 * C;
    kernels::copy(ex, k_cache + int64_t{pos + i} * C, row + C, C);      // a row: on the caller's
    kernels::copy(ex, v_cache + int64_t{pos + i} * C, row + 2 * C, C);  // thread on the CPU
  }
  // y = softmax(q k^T / sqrt(HS)) v per head; token i sees the cached positions 0..pos+i
  for (int i = 0; i < n; ++i)
    kernels::attention_decode_forward(ex, yy + int64_t{i} * C, qkv + int64_t{i} * 3 * C, k_cache,
                                      v_cache, pos + i + 1, C, NH, scratch);
  c_proj.apply(ex, out, yy, n);  // out = c_proj(y)
}

}  // namespace scratchgpt
