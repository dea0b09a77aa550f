// trace_steps.cpp: the intermediates of the lessons' --trace (declared in trace_page.h): one head
// of the lecture's Head, the book's CausalAttention and MultiHeadAttention on batch element 0,
// with the weight matrices, labelled axes, one worked dot product and one worked softmax row.
// Leaves out: printing and the page (trace_page.cpp), batch elements other than 0.

#include <cmath>
#include <cstdio>
#include <limits>

#include "lessons/trace_page.h"
#include "stones/attend.h"

namespace scratchgpt::lessons {

namespace {

const float kNegInf = -std::numeric_limits<float>::infinity();

// A number with four fixed decimals ("-0.0701"): the trace's own lines never switch to
// scientific notation.
std::string fixed4(double v) {
  if (std::isinf(v)) return v < 0 ? "-inf" : "inf";
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.4f", v);
  return buf;
}

// "prefix0", "prefix1", ... n labels.
std::vector<std::string> numbered(const std::string& prefix, int n) {
  std::vector<std::string> out;
  for (int i = 0; i < n; ++i) out.push_back(prefix + std::to_string(i));
  return out;
}

TraceMatrix labelled(TraceMatrix m, std::vector<std::string> rows, std::string row_axis,
                     std::vector<std::string> cols, std::string col_axis) {
  m.rows = std::move(rows);
  m.cols = std::move(cols);
  m.row_axis = std::move(row_axis);
  m.col_axis = std::move(col_axis);
  return m;
}

// A (T, T) matrix of scores or weights: query token t on the rows, key token s on the columns.
TraceMatrix scores_matrix(TraceMatrix m, const std::vector<std::string>& tokens) {
  return labelled(std::move(m), tokens, "t (query)", tokens, "s (key)");
}

// nn.Linear's weight (out, in), labelled.
TraceMatrix weight_matrix(const std::string& name, const std::string& op,
                          const std::vector<float>& w, int out, int in, const std::string& out_axis,
                          const std::string& in_axis) {
  return labelled({name, op, w, {out, in}, {}}, numbered("o=", out), out_axis, numbered("i=", in),
                  in_axis);
}

// The worked dot product score[t, s] = q[t] . k[s], term by term, and its sum (in the
// summation order of the score: the sum printed is the float the matrix holds).
std::vector<std::string> worked_dot(const std::string& score, const std::string& qn,
                                    const std::string& kn, const float* q, const float* k, int n,
                                    int t, int s, const std::vector<std::string>& tokens) {
  const std::string ts = std::to_string(t), ss = std::to_string(s);
  std::vector<std::string> lines = {"worked dot product: " + score + "[" + ts + ", " + ss +
                                    "] = " + qn + "[" + ts + "] . " + kn + "[" + ss + "] (query " +
                                    tokens[t] + ", key " + tokens[s] + "), term by term:"};
  float dot = 0;
  for (int i = 0; i < n; ++i) {
    dot += q[i] * k[i];
    lines.push_back("  " + qn + "[" + ts + ", " + std::to_string(i) + "] * " + kn + "[" + ss +
                    ", " + std::to_string(i) + "] = " + fixed4(q[i]) + " * " + fixed4(k[i]) +
                    " = " + fixed4(static_cast<double>(q[i]) * k[i]));
  }
  lines.push_back("  sum = " + fixed4(dot) + " = " + score + "[" + ts + ", " + ss + "]");
  return lines;
}

// The worked softmax of one row z of (masked, scaled) scores: exp of each, their sum, each
// divided by the sum. Subtracts the row's maximum first (as softmax does) only when exp would
// be too large to read.
std::vector<std::string> worked_softmax(const std::string& weights, const float* z, int T, int t,
                                        const std::vector<std::string>& tokens) {
  double zmax = kNegInf;
  for (int s = 0; s < T; ++s) zmax = std::max(zmax, static_cast<double>(z[s]));
  const double shift = zmax > 30 ? zmax : 0.0;
  const std::string e = shift != 0 ? "exp(z - " + fixed4(shift) + ")" : "exp(z)";
  std::vector<std::string> lines = {"worked softmax row t=" + std::to_string(t) + " (query " +
                                    tokens[t] + "): " + weights + "[" + std::to_string(t) +
                                    ", s] = " + e + "[s] / the sum of " + e + " over s:"};
  std::vector<double> ex(T);
  double sum = 0;
  for (int s = 0; s < T; ++s) {
    ex[s] = std::exp(static_cast<double>(z[s]) - shift);
    sum += ex[s];
    lines.push_back("  s=" + std::to_string(s) + ": " + e + " = exp(" + fixed4(z[s] - shift) +
                    ") = " + fixed4(ex[s]));
  }
  lines.push_back("  sum = " + fixed4(sum));
  for (int s = 0; s < T; ++s)
    lines.push_back("  s=" + std::to_string(s) + ": " + fixed4(ex[s]) + " / " + fixed4(sum) +
                    " = " + fixed4(ex[s] / sum));
  return lines;
}

std::vector<std::string> tokens_or_positions(const std::vector<std::string>& tokens, int T) {
  return static_cast<int>(tokens.size()) == T ? tokens : numbered("t=", T);
}

}  // namespace

std::string trace_axes_sentence(const std::string& scores, const std::string& weights,
                                const std::string& weight_shape, const std::string& example) {
  return "In every (T, T) matrix below, row t is the query token and column s the key token: " +
         scores + "[t, s] is how much token t attends to token s, and the mask hides s > t. " +
         weights + " are nn.Linear weights of shape " + weight_shape + ": " + example +
         ". Under the scores, one dot product is worked out term by term, and under the "
         "weights one softmax row.";
}

const char* const kHeadTraceCode =
    "k = key(x); q = query(x); wei = q @ k.transpose(-2, -1) * head_size**-0.5; "
    "wei = wei.masked_fill(tril == 0, float('-inf')); wei = F.softmax(wei, dim=-1); "
    "v = value(x); out = wei @ v";

// --trace: the scaled Head of gpt.py on batch element 0, one line of code at a time, each
// intermediate named as in the code (the lecture computes wei in place; each stage is kept).
std::vector<TraceMatrix> trace_head(stones::Head<float>& head, const std::vector<float>& x, int B,
                                    int T, int C, const std::string& x_op,
                                    const std::vector<std::string>& token_names) {
  const int HS = head.HS;
  const std::vector<std::string> tokens = tokens_or_positions(token_names, T);
  head.scaled = true;
  std::vector<float> out(int64_t{B} * T * HS);  // (B, T, HS)
  head.forward(out.data(), x.data(), B, T);     // the module itself: k, q, v, softmax, out
  const int64_t tc = int64_t{T} * C, th = int64_t{T} * HS, tt = int64_t{T} * T;
  // (T, T) stages of batch element 0, summed in attend_forward's order
  std::vector<float> wei(tt), scaled(tt), tril(tt), masked(tt);
  std::vector<bool> future(tt);  // s > t: what the mask hides
  const float scale = stones::apply_scale(1.0f, stones::Scale::kMultiplyInvSqrt, HS);
  for (int t = 0; t < T; ++t)
    for (int s = 0; s < T; ++s) {
      float dot = 0;
      for (int i = 0; i < HS; ++i) dot += head.q[int64_t{t} * HS + i] * head.k[int64_t{s} * HS + i];
      const int64_t ts = int64_t{t} * T + s;
      wei[ts] = dot;
      scaled[ts] = stones::apply_scale(dot, stones::Scale::kMultiplyInvSqrt, HS);
      tril[ts] = s <= t ? 1.0f : 0.0f;
      masked[ts] = s <= t ? scaled[ts] : kNegInf;
      future[ts] = s > t;
    }
  const std::vector<int64_t> t_c = {T, C}, t_hs = {T, HS}, t_t = {T, T};
  const std::vector<std::string> chans = numbered("c=", C), dims = numbered("i=", HS);
  auto rows_of_tokens = [&](TraceMatrix m, const std::vector<std::string>& cols,
                            const std::string& col_axis) {
    return labelled(std::move(m), tokens, "t (token)", cols, col_axis);
  };
  auto weight = [&](const char* name, const stones::Linear<float>& l) {
    return weight_matrix(std::string(name) + ".weight:",
                         std::string(name) + " = nn.Linear(C, head_size, bias=False)", l.weight, HS,
                         C, "head_size (output)", "C (input)");
  };
  const int t = T - 1;  // the worked examples: the last query, which sees every key
  TraceMatrix wei_m = scores_matrix(
      {"wei = q @ k.transpose(-2, -1) [0]:", "wei = q @ k.transpose(-2, -1)", wei, t_t, {}},
      tokens);
  wei_m.notes =
      worked_dot("wei", "q", "k", head.q.data() + int64_t{t} * HS, head.k.data(), HS, t, 0, tokens);
  TraceMatrix soft = scores_matrix({"F.softmax(wei, dim=-1) [0]:",
                                    "wei = F.softmax(wei, dim=-1)",
                                    {head.wei.begin(), head.wei.begin() + tt},
                                    t_t,
                                    future},
                                   tokens);
  soft.notes = worked_softmax("wei", masked.data() + int64_t{t} * T, T, t, tokens);
  return {
      rows_of_tokens({"x[0]:", x_op, {x.begin(), x.begin() + tc}, t_c, {}}, chans, "C (channel)"),
      weight("key", head.key),
      weight("query", head.query),
      weight("value", head.value),
      rows_of_tokens({"k[0]:", "k = key(x)", {head.k.begin(), head.k.begin() + th}, t_hs, {}}, dims,
                     "head_size"),
      rows_of_tokens({"q[0]:", "q = query(x)", {head.q.begin(), head.q.begin() + th}, t_hs, {}},
                     dims, "head_size"),
      rows_of_tokens({"v[0]:", "v = value(x)", {head.v.begin(), head.v.begin() + th}, t_hs, {}},
                     dims, "head_size"),
      wei_m,
      {"scale = head_size**-0.5:", "scale = head_size**-0.5", {scale}, {}, {}},
      scores_matrix({"wei * scale [0]:", "wei = wei * scale", scaled, t_t, {}}, tokens),
      scores_matrix({"tril = torch.tril(torch.ones(T, T)):", "tril = torch.tril(torch.ones(T, T))",
                     tril, t_t, future},
                    tokens),
      scores_matrix({"wei.masked_fill(tril == 0, float('-inf')) [0]:",
                     "wei = wei.masked_fill(tril == 0, float('-inf'))", masked, t_t, future},
                    tokens),
      soft,
      rows_of_tokens(
          {"out = wei @ v [0]:", "out = wei @ v", {out.begin(), out.begin() + th}, t_hs, {}}, dims,
          "head_size"),
  };
}

namespace {

// How the book names one head's score stages: CausalAttention's "[0]", "transpose(1, 2)",
// "mask.bool()"; MultiHeadAttention's "[0, 0]", "transpose(2, 3)", "mask_bool".
struct BookNames {
  std::string at, dims, fill, mask_op, scale_op;
};

// One head of the book's attention on batch element 0, from its queries and keys (T, d_k):
// attn_scores (with a worked dot product), the triu mask, the masked scores, the scale
// sqrt(d_k), the scaled scores and attn_weights = `weights` (with a worked softmax row).
std::vector<TraceMatrix> book_scores(const float* q, const float* k, int d_k, int T,
                                     const float* weights, const BookNames& n,
                                     const std::vector<std::string>& tokens) {
  const int64_t tt = int64_t{T} * T;
  std::vector<float> scores(tt), mask(tt), masked(tt), scaled(tt);  // (T, T)
  std::vector<bool> future(tt);
  for (int t = 0; t < T; ++t)
    for (int s = 0; s < T; ++s) {
      float dot = 0;  // in attend_forward's order
      for (int i = 0; i < d_k; ++i) dot += q[int64_t{t} * d_k + i] * k[int64_t{s} * d_k + i];
      const int64_t ts = int64_t{t} * T + s;
      scores[ts] = dot;
      mask[ts] = s > t ? 1.0f : 0.0f;
      masked[ts] = s > t ? kNegInf : dot;
      scaled[ts] = stones::apply_scale(masked[ts], stones::Scale::kDivideSqrt, d_k);
      future[ts] = s > t;
    }
  const float scale = static_cast<float>(std::sqrt(static_cast<double>(d_k)));
  const std::vector<int64_t> t_t = {T, T};
  const int t = T - 1;  // the worked examples: the last query, which sees every key
  const std::string product = "attn_scores = queries @ keys.transpose(" + n.dims + ")";
  TraceMatrix s0 = scores_matrix({product + " " + n.at + ":", product, scores, t_t, {}}, tokens);
  s0.notes =
      worked_dot("attn_scores", "queries", "keys", q + int64_t{t} * d_k, k, d_k, t, 0, tokens);
  TraceMatrix w = scores_matrix({"attn_weights = torch.softmax(..., dim=-1) " + n.at + ":",
                                 "attn_weights = torch.softmax(attn_scores / keys.shape[-1]**0.5, "
                                 "dim=-1)",
                                 {weights, weights + tt},
                                 t_t,
                                 future},
                                tokens);
  w.notes = worked_softmax("attn_weights", scaled.data() + int64_t{t} * T, T, t, tokens);
  const std::string fill = "attn_scores.masked_fill_(" + n.fill + ", -torch.inf)";
  return {
      s0,
      scores_matrix(
          {"mask = torch.triu(torch.ones(T, T), diagonal=1):", n.mask_op, mask, t_t, future},
          tokens),
      scores_matrix({fill + " " + n.at + ":", fill, masked, t_t, future}, tokens),
      {"scale = keys.shape[-1]**0.5:", n.scale_op, {scale}, {}, {}},
      scores_matrix({"attn_scores / keys.shape[-1]**0.5 " + n.at + ":",
                     "attn_scores / keys.shape[-1]**0.5", scaled, t_t, future},
                    tokens),
      w,
  };
}

// Rows of batch element 0 (T, width) labelled by token, columns by `axis` i=0, i=1, ...
TraceMatrix token_rows(const std::string& name, const std::string& op, const float* data, int T,
                       int width, const std::string& axis, const std::vector<std::string>& tokens) {
  return labelled({name, op, {data, data + int64_t{T} * width}, {T, width}, {}}, tokens,
                  "t (token)", numbered("i=", width), axis);
}

}  // namespace

const char* const kCausalAttentionTraceCode =
    "keys = self.W_key(x); queries = self.W_query(x); values = self.W_value(x); "
    "attn_scores = queries @ keys.transpose(1, 2); "
    "attn_scores.masked_fill_(self.mask.bool()[:num_tokens, :num_tokens], -torch.inf); "
    "attn_weights = torch.softmax(attn_scores / keys.shape[-1]**0.5, dim=-1); "
    "context_vec = attn_weights @ values";

std::vector<TraceMatrix> trace_causal_attention(stones::CausalAttention<float>& ca,
                                                const std::vector<float>& x, int B, int T,
                                                const std::vector<std::string>& token_names) {
  const int C = ca.C, OC = ca.OC;
  const std::vector<std::string> tokens = tokens_or_positions(token_names, T);
  std::vector<float> out(int64_t{B} * T * OC);  // (B, T, d_out)
  ca.forward(out.data(), x.data(), B, T);       // eval: no dropout
  auto weight = [&](const char* name, const stones::Linear<float>& l) {
    return weight_matrix(std::string(name) + ".weight:",
                         std::string(name) + " = nn.Linear(d_in, d_out, bias=qkv_bias)", l.weight,
                         OC, C, "d_out (output)", "d_in (input)");
  };
  std::vector<TraceMatrix> trace = {
      token_rows("x[0]:", "x = batch", x.data(), T, C, "d_in", tokens),
      weight("W_query", ca.W_query),
      weight("W_key", ca.W_key),
      weight("W_value", ca.W_value),
      token_rows("keys[0]:", "keys = self.W_key(x)", ca.k.data(), T, OC, "d_out", tokens),
      token_rows("queries[0]:", "queries = self.W_query(x)", ca.q.data(), T, OC, "d_out", tokens),
      token_rows("values[0]:", "values = self.W_value(x)", ca.v.data(), T, OC, "d_out", tokens)};
  const BookNames names{"[0]", "1, 2", "mask.bool()",
                        "mask = torch.triu(torch.ones(T, T), diagonal=1)",
                        "scale = keys.shape[-1]**0.5"};
  for (TraceMatrix& m :
       book_scores(ca.q.data(), ca.k.data(), OC, T, ca.weights.data(), names, tokens))
    trace.push_back(std::move(m));
  trace.push_back(
      token_rows("context_vec = attn_weights @ values [0]:", "context_vec = attn_weights @ values",
                 out.data(), T, OC, "d_out", tokens));
  return trace;
}

const char* const kMultiHeadTraceCode =
    "keys = self.W_key(x); queries = self.W_query(x); values = self.W_value(x); "
    "keys = keys.view(b, num_tokens, self.num_heads, self.head_dim).transpose(1, 2) (queries, "
    "values likewise); attn_scores = queries @ keys.transpose(2, 3); "
    "attn_scores.masked_fill_(mask_bool, -torch.inf); "
    "attn_weights = torch.softmax(attn_scores / keys.shape[-1]**0.5, dim=-1); "
    "context_vec = (attn_weights @ values).transpose(1, 2) ... .view(b, num_tokens, self.d_out); "
    "context_vec = self.out_proj(context_vec)";

std::vector<TraceMatrix> trace_multi_head_attention(stones::MultiHeadAttention<float>& mha,
                                                    const std::vector<float>& x, int B, int T,
                                                    const std::vector<std::string>& token_names) {
  const int C = mha.C, OC = mha.OC, HS = mha.HS, NH = mha.NH;
  const std::vector<std::string> tokens = tokens_or_positions(token_names, T);
  std::vector<float> out(int64_t{B} * T * OC);  // (B, T, d_out)
  mha.forward(out.data(), x.data(), B, T);      // eval: no dropout
  // head h of sequence 0: the column slice [h*HS, (h+1)*HS) of the (T, d_out) rows
  auto head = [&](const std::vector<float>& m, int h) {
    std::vector<float> s(int64_t{T} * HS);  // (T, head_dim)
    for (int t = 0; t < T; ++t)
      for (int i = 0; i < HS; ++i) s[int64_t{t} * HS + i] = m[int64_t{t} * OC + h * HS + i];
    return s;
  };
  auto weight = [&](const char* name, const stones::Linear<float>& l, int in, const char* in_axis) {
    return weight_matrix(
        std::string(name) + ".weight:", std::string(name) + " = nn.Linear(" + in_axis + ", d_out)",
        l.weight, OC, in, "d_out (output)", std::string(in_axis) + " (input)");
  };
  std::vector<TraceMatrix> trace = {
      token_rows("x[0]:", "x = batch", x.data(), T, C, "d_in", tokens),
      weight("W_query", mha.W_query, C, "d_in"),
      weight("W_key", mha.W_key, C, "d_in"),
      weight("W_value", mha.W_value, C, "d_in"),
      weight("out_proj", mha.out_proj, OC, "d_out"),
      labelled(
          {"out_proj.bias:", "out_proj = nn.Linear(d_out, d_out)", mha.out_proj.bias, {OC}, {}}, {},
          "", numbered("o=", OC), "d_out"),
      token_rows("keys[0]:", "keys = self.W_key(x)", mha.k.data(), T, OC, "d_out", tokens),
      token_rows("queries[0]:", "queries = self.W_query(x)", mha.q.data(), T, OC, "d_out", tokens),
      token_rows("values[0]:", "values = self.W_value(x)", mha.v.data(), T, OC, "d_out", tokens)};
  for (int h = 0; h < NH; ++h) {  // the split: each head's (T, head_dim) slice
    const std::string at = "[0, " + std::to_string(h) + "]:";
    trace.push_back(token_rows(
        "keys" + at, "keys = keys.view(b, num_tokens, num_heads, head_dim).transpose(1, 2)",
        head(mha.k, h).data(), T, HS, "head_dim", tokens));
    trace.push_back(token_rows("queries" + at, "queries = queries.view(...).transpose(1, 2)",
                               head(mha.q, h).data(), T, HS, "head_dim", tokens));
    trace.push_back(token_rows("values" + at, "values = values.view(...).transpose(1, 2)",
                               head(mha.v, h).data(), T, HS, "head_dim", tokens));
  }
  const BookNames names{"[0, 0]", "2, 3", "mask_bool",
                        "mask_bool = self.mask.bool()[:num_tokens, :num_tokens]",
                        "scale = keys.shape[-1]**0.5 (head_dim)"};
  const std::vector<float> q0 = head(mha.q, 0), k0 = head(mha.k, 0);
  for (TraceMatrix& m : book_scores(q0.data(), k0.data(), HS, T, mha.weights.data(), names, tokens))
    trace.push_back(std::move(m));
  const int64_t tt = int64_t{T} * T;
  std::vector<bool> future(tt);
  for (int64_t ts = 0; ts < tt; ++ts) future[ts] = ts % T > ts / T;  // s > t
  for (int h = 1; h < NH; ++h)  // the other heads' weights: each head attends in its own way
    trace.push_back(
        scores_matrix({"attn_weights = torch.softmax(..., dim=-1) [0, " + std::to_string(h) + "]:",
                       "attn_weights = torch.softmax(attn_scores / keys.shape[-1]**0.5, dim=-1)",
                       {mha.weights.begin() + h * tt, mha.weights.begin() + (h + 1) * tt},
                       {T, T},
                       future},
                      tokens));
  for (int h = 0; h < NH; ++h)
    trace.push_back(token_rows(
        "(attn_weights @ values) [0, " + std::to_string(h) + "]:", "attn_weights @ values",
        head(mha.context, h).data(), T, HS, "head_dim", tokens));
  trace.push_back(token_rows("context_vec (heads concatenated) [0]:",
                             "context_vec = (attn_weights @ values).transpose(1, 2).contiguous()"
                             ".view(b, num_tokens, self.d_out)",
                             mha.context.data(), T, OC, "d_out", tokens));
  trace.push_back(token_rows(
      "context_vec = self.out_proj(context_vec) [0]:", "context_vec = self.out_proj(context_vec)",
      out.data(), T, OC, "d_out", tokens));
  return trace;
}

}  // namespace scratchgpt::lessons
