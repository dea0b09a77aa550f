// multi_head_attention.cpp: the three multi-head forms, for float and double.

#include "stones/multi_head_attention.h"

namespace scratchgpt::stones {

// Copies rows of `width` values from src (stride sw) into dst (stride dw), N rows.
template <typename F>
static void copy_cols(F* dst, int dw, const F* src, int sw, int width, int64_t N, bool add) {
  for (int64_t n = 0; n < N; ++n)
    for (int i = 0; i < width; ++i) {
      if (add)
        dst[n * dw + i] += src[n * sw + i];
      else
        dst[n * dw + i] = src[n * sw + i];
    }
}

// ---------------------------------------------------------------- MultiHeadAttentionWrapper

template <typename F>
MultiHeadAttentionWrapper<F>::MultiHeadAttentionWrapper(int d_in, int d_out, int context_length,
                                                        float dropout, int num_heads, bool qkv_bias)
    : C(d_in), OC(d_out), NH(num_heads) {
  SG_CHECK(num_heads > 0, "MultiHeadAttentionWrapper: num_heads must be positive");
  for (int h = 0; h < NH; ++h) heads.emplace_back(d_in, d_out, context_length, dropout, qkv_bias);
}

template <typename F>
void MultiHeadAttentionWrapper<F>::init(Rng& rng) {
  for (auto& h : heads) h.init(rng);
}

template <typename F>
void MultiHeadAttentionWrapper<F>::forward(F* out, const F* x, int b, int t, Rng* rng) {
  B = b;
  T = t;
  const int64_t n = static_cast<int64_t>(B) * T;
  std::vector<F> part(static_cast<size_t>(n) * OC);  // (B, T, OC) one head's output
  for (int h = 0; h < NH; ++h) {
    heads[h].forward(part.data(), x, B, T, rng);
    copy_cols(out + h * OC, NH * OC, part.data(), OC, OC, n, false);  // torch.cat(dim=-1)
  }
}

template <typename F>
void MultiHeadAttentionWrapper<F>::backward(F* dx, const F* dout) {
  const int64_t n = static_cast<int64_t>(B) * T;
  std::vector<F> dpart(static_cast<size_t>(n) * OC);  // (B, T, OC)
  for (int h = 0; h < NH; ++h) {
    // out[..., h*OC:(h+1)*OC] = head_h(x)
    copy_cols(dpart.data(), OC, dout + h * OC, NH * OC, OC, n, false);
    heads[h].backward(dx, dpart.data());
  }
}

template <typename F>
void MultiHeadAttentionWrapper<F>::zero_grad() {
  for (auto& h : heads) h.zero_grad();
}

// ---------------------------------------------------------------- LectureMultiHeadAttention

template <typename F>
LectureMultiHeadAttention<F>::LectureMultiHeadAttention(int n_embd, int num_heads, int head_size,
                                                        int block_size, float p)
    : C(n_embd),
      NH(num_heads),
      HS(head_size),
      dropout(p),
      proj(num_heads * head_size, n_embd, true) {
  SG_CHECK(num_heads > 0, "MultiHeadAttention: num_heads must be positive");
  for (int h = 0; h < NH; ++h) heads.emplace_back(n_embd, head_size, block_size, p);
}

template <typename F>
void LectureMultiHeadAttention<F>::init(Rng& rng) {
  for (auto& h : heads) h.init(rng);
  proj.init(rng);
}

template <typename F>
void LectureMultiHeadAttention<F>::forward(F* out, const F* x, int b, int t, Rng* rng) {
  B = b;
  T = t;
  const int64_t n = static_cast<int64_t>(B) * T;
  cat.resize(static_cast<size_t>(n) * NH * HS);
  std::vector<F> part(static_cast<size_t>(n) * HS);  // (B, T, HS)
  for (int h = 0; h < NH; ++h) {
    heads[h].forward(part.data(), x, B, T, rng);
    copy_cols(cat.data() + h * HS, NH * HS, part.data(), HS, HS, n, false);
  }
  proj.forward(out, cat.data(), static_cast<int>(n));  // out = self.proj(out)  (B, T, C)
  drop = draw_dropout_mask<F>(rng, n * C, dropout);
  for (size_t i = 0; i < drop.size(); ++i) out[i] *= drop[i];  // out = self.dropout(out)
}

template <typename F>
void LectureMultiHeadAttention<F>::backward(F* dx, const F* dout) {
  const int64_t n = static_cast<int64_t>(B) * T;
  std::vector<F> dproj(dout, dout + n * C);                      // (B, T, C)
  for (size_t i = 0; i < drop.size(); ++i) dproj[i] *= drop[i];  // out = dropout(proj)
  std::vector<F> dcat(cat.size(), F(0));                         // (B, T, NH*HS)
  proj.backward(dcat.data(), dproj.data());                      // out = self.proj(cat)
  std::vector<F> dpart(static_cast<size_t>(n) * HS);             // (B, T, HS)
  for (int h = 0; h < NH; ++h) {
    copy_cols(dpart.data(), HS, dcat.data() + h * HS, NH * HS, HS, n, false);
    heads[h].backward(dx, dpart.data());
  }
}

template <typename F>
void LectureMultiHeadAttention<F>::zero_grad() {
  for (auto& h : heads) h.zero_grad();
  proj.zero_grad();
}

// ---------------------------------------------------------------- MultiHeadAttention

template <typename F>
MultiHeadAttention<F>::MultiHeadAttention(int d_in, int d_out, int ctx, float p, int num_heads,
                                          bool qkv_bias)
    : C(d_in),
      OC(d_out),
      NH(num_heads),
      context_length(ctx),
      dropout(p),
      W_query(d_in, d_out, qkv_bias),
      W_key(d_in, d_out, qkv_bias),
      W_value(d_in, d_out, qkv_bias),
      out_proj(d_out, d_out, true) {
  SG_CHECK(num_heads > 0 && d_out % num_heads == 0, "MultiHeadAttention: d_out (", d_out,
           ") must be divisible by num_heads (", num_heads, ")");
  SG_CHECK(p >= 0.0f && p < 1.0f, "MultiHeadAttention: dropout must be in [0, 1), got ", p);
  HS = d_out / num_heads;
}

template <typename F>
void MultiHeadAttention<F>::init(Rng& rng) {
  W_query.init(rng);
  W_key.init(rng);
  W_value.init(rng);
  out_proj.init(rng);
}

template <typename F>
void MultiHeadAttention<F>::forward(F* out, const F* x, int b, int t, Rng* rng) {
  SG_CHECK(t <= context_length, "MultiHeadAttention: T = ", t, " exceeds context_length ",
           context_length);
  B = b;
  T = t;
  const int n = B * T;
  q.resize(static_cast<size_t>(n) * OC);
  k.resize(q.size());
  v.resize(q.size());
  W_key.forward(k.data(), x, n);    // keys = self.W_key(x)         (B, T, d_out)
  W_query.forward(q.data(), x, n);  // queries = self.W_query(x)    (B, T, d_out)
  W_value.forward(v.data(), x, n);  // values = self.W_value(x)     (B, T, d_out)
  scores.resize(static_cast<size_t>(B) * NH * T * T);
  weights.resize(scores.size());
  drop = draw_dropout_mask<F>(rng, static_cast<int64_t>(weights.size()), dropout);
  context.resize(q.size());
  // .view(b, T, NH, HS).transpose(1, 2): head h of sequence bb is the column slice
  // [h*HS, (h+1)*HS) of that sequence's (T, d_out) rows - no copy needed (Heads).
  // attn_scores = queries @ keys.transpose(2, 3); masked_fill_; softmax(/ HS**0.5); dropout;
  // context_vec = (attn_weights @ values).transpose(1, 2).contiguous().view(b, T, d_out)
  attend_heads_forward(context.data(), scores.data(), weights.data(), q.data(), k.data(), v.data(),
                       Heads{B, NH, T, HS}, CausalMask::kNegInf, Scale::kDivideSqrt, drop);
  out_proj.forward(out, context.data(), n);  // context_vec = self.out_proj(context_vec)
}

template <typename F>
void MultiHeadAttention<F>::backward(F* dx, const F* dout) {
  std::vector<F> dcontext(context.size(), F(0));  // (B, T, d_out)
  out_proj.backward(dcontext.data(), dout);       // out = self.out_proj(context_vec)
  std::vector<F> dq(q.size(), F(0)), dk(q.size(), F(0)), dv(q.size(), F(0));  // (B, T, d_out)
  attend_heads_backward(dq.data(), dk.data(), dv.data(), dcontext.data(), weights.data(), q.data(),
                        k.data(), v.data(), Heads{B, NH, T, HS}, Scale::kDivideSqrt, drop);
  W_query.backward(dx, dq.data());  // queries = self.W_query(x)
  W_key.backward(dx, dk.data());    // keys = self.W_key(x)
  W_value.backward(dx, dv.data());  // values = self.W_value(x)
}

template <typename F>
void MultiHeadAttention<F>::zero_grad() {
  W_query.zero_grad();
  W_key.zero_grad();
  W_value.zero_grad();
  out_proj.zero_grad();
}

template struct MultiHeadAttentionWrapper<float>;
template struct MultiHeadAttentionWrapper<double>;
template struct LectureMultiHeadAttention<float>;
template struct LectureMultiHeadAttention<double>;
template struct MultiHeadAttention<float>;
template struct MultiHeadAttention<double>;

}  // namespace scratchgpt::stones
