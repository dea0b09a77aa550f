// trace_page.cpp: print_trace and write_trace_page (see trace_page.h).

#include "lessons/trace_page.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <sstream>

#include "core/atomic_file.h"
#include "core/check.h"
#include "core/html.h"
#include "core/page.h"
#include "stones/attend.h"
#include "stones/print.h"

namespace scratchgpt::lessons {

namespace {

int64_t numel(const std::vector<int64_t>& shape) {
  int64_t n = 1;
  for (int64_t d : shape) n *= d;
  return n;
}

// Red for positive, blue for negative, opacity by |v| / the largest finite |v| of the matrix.
std::string cell_colour(float v, float vmax) {
  if (!std::isfinite(v) || vmax <= 0) return "transparent";
  const double a = std::min(1.0, std::fabs(static_cast<double>(v)) / vmax) * 0.85;
  std::ostringstream os;
  os.precision(3);
  os << (v >= 0 ? "rgba(214,69,50," : "rgba(45,100,214,") << a << ")";
  return os.str();
}

// One matrix of the trace: the arrow naming the operation that made it, its name and shape, and
// a grid of its numbers as PyTorch prints them, each cell coloured by its value.
std::string step_markup(const TraceMatrix& m) {
  const int64_t rows = m.shape.size() == 2 ? m.shape[0] : 1;
  const int64_t cols = m.shape.empty() ? 1 : m.shape.back();
  const std::vector<std::string> texts = element_texts(m.data.data(), m.shape);
  float vmax = 0;
  for (size_t i = 0; i < m.data.size(); ++i)
    if (std::isfinite(m.data[i]) && (m.masked.empty() || !m.masked[i]))
      vmax = std::max(vmax, std::fabs(m.data[i]));
  std::string name = m.name;
  if (!name.empty() && name.back() == ':') name.pop_back();
  std::ostringstream h;
  h << "<section class=\"step\">\n";
  if (!m.op.empty())
    h << "<div class=\"arrow\">" << page_asset("trace_arrow.html") << "<code>" << html_escape(m.op)
      << "</code></div>\n";
  h << "<h2>" << html_escape(name) << "<span class=\"shape\">";
  if (m.shape.empty()) {
    h << "scalar";
  } else {
    h << "(";
    for (size_t d = 0; d < m.shape.size(); ++d) h << (d ? ", " : "") << m.shape[d];
    h << ")";
  }
  h << "</span></h2>\n<table class=\"grid\" data-name=\"" << html_escape(m.name)
    << "\" data-rows=\"" << rows << "\" data-cols=\"" << cols << "\">\n";
  for (int64_t r = 0; r < rows; ++r) {
    h << "<tr>";
    for (int64_t c = 0; c < cols; ++c) {
      const size_t i = static_cast<size_t>(r * cols + c);
      if (!m.masked.empty() && m.masked[i])
        h << "<td class=\"masked\">";
      else
        h << "<td style=\"background:" << cell_colour(m.data[i], vmax) << "\">";
      h << html_escape(texts[i]) << "</td>";
    }
    h << "</tr>\n";
  }
  h << "</table>\n</section>\n";
  return h.str();
}

}  // namespace

std::vector<std::string> element_texts(const float* data, const std::vector<int64_t>& shape) {
  const int64_t n = numel(shape);
  std::vector<std::string> out;
  std::string s = format_tensor(data, shape);
  if (s.find("...") == std::string::npos) {
    s = s.substr(7, s.size() - 8);  // "tensor(" ... ")"
    std::string cur;
    for (char c : s) {
      if (c == '[' || c == ']' || c == ',' || c == ' ' || c == '\n') {
        if (!cur.empty()) out.push_back(cur);
        cur.clear();
      } else {
        cur += c;
      }
    }
    if (!cur.empty()) out.push_back(cur);
    if (static_cast<int64_t>(out.size()) == n) return out;
    out.clear();
  }
  for (int64_t i = 0; i < n; ++i) {  // summarised: each element in a format of its own
    const std::string e = format_tensor(data + i, {});
    out.push_back(e.substr(7, e.size() - 8));
  }
  return out;
}

const char* const kHeadTraceCode =
    "k = key(x); q = query(x); wei = q @ k.transpose(-2, -1) * head_size**-0.5; "
    "wei = wei.masked_fill(tril == 0, float('-inf')); wei = F.softmax(wei, dim=-1); "
    "v = value(x); out = wei @ v";
// --trace: the scaled Head of gpt.py on batch element 0, one line of code at a time, each
// intermediate named as in the code (the lecture computes wei in place; each stage is kept).
std::vector<TraceMatrix> trace_head(stones::Head<float>& head, const std::vector<float>& x, int B,
                                    int T, int C, const std::string& x_op) {
  const int HS = head.HS;
  const float neg_inf = -std::numeric_limits<float>::infinity();
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
      masked[ts] = s <= t ? scaled[ts] : neg_inf;
      future[ts] = s > t;
    }
  const std::vector<int64_t> t_c = {T, C}, t_hs = {T, HS}, t_t = {T, T};
  return {
      {"x[0]:", x_op, {x.begin(), x.begin() + tc}, t_c, {}},
      {"k[0]:", "k = key(x)", {head.k.begin(), head.k.begin() + th}, t_hs, {}},
      {"q[0]:", "q = query(x)", {head.q.begin(), head.q.begin() + th}, t_hs, {}},
      {"v[0]:", "v = value(x)", {head.v.begin(), head.v.begin() + th}, t_hs, {}},
      {"wei = q @ k.transpose(-2, -1) [0]:", "wei = q @ k.transpose(-2, -1)", wei, t_t, {}},
      {"scale = head_size**-0.5:", "scale = head_size**-0.5", {scale}, {}, {}},
      {"wei * scale [0]:", "wei = wei * scale", scaled, t_t, {}},
      {"tril = torch.tril(torch.ones(T, T)):", "tril = torch.tril(torch.ones(T, T))", tril, t_t,
       future},
      {"wei.masked_fill(tril == 0, float('-inf')) [0]:",
       "wei = wei.masked_fill(tril == 0, float('-inf'))", masked, t_t, future},
      {"F.softmax(wei, dim=-1) [0]:",
       "wei = F.softmax(wei, dim=-1)",
       {head.wei.begin(), head.wei.begin() + tt},
       t_t,
       future},
      {"out = wei @ v [0]:", "out = wei @ v", {out.begin(), out.begin() + th}, t_hs, {}},
  };
}

const char* const kCausalAttentionTraceCode =
    "keys = self.W_key(x); queries = self.W_query(x); values = self.W_value(x); "
    "attn_scores = queries @ keys.transpose(1, 2); "
    "attn_scores.masked_fill_(self.mask.bool()[:num_tokens, :num_tokens], -torch.inf); "
    "attn_weights = torch.softmax(attn_scores / keys.shape[-1]**0.5, dim=-1); "
    "context_vec = attn_weights @ values";

std::vector<TraceMatrix> trace_causal_attention(stones::CausalAttention<float>& ca,
                                                const std::vector<float>& x, int B, int T) {
  const int C = ca.C, OC = ca.OC;
  const float neg_inf = -std::numeric_limits<float>::infinity();
  std::vector<float> out(int64_t{B} * T * OC);  // (B, T, d_out)
  ca.forward(out.data(), x.data(), B, T);       // eval: no dropout
  const int64_t tc = int64_t{T} * C, to = int64_t{T} * OC, tt = int64_t{T} * T;
  std::vector<float> scores(tt), mask(tt), masked(tt), scaled(tt);  // (T, T) of element 0
  std::vector<bool> future(tt);
  for (int t = 0; t < T; ++t)
    for (int s = 0; s < T; ++s) {
      float dot = 0;  // in attend_forward's order
      for (int i = 0; i < OC; ++i) dot += ca.q[int64_t{t} * OC + i] * ca.k[int64_t{s} * OC + i];
      const int64_t ts = int64_t{t} * T + s;
      scores[ts] = dot;
      mask[ts] = s > t ? 1.0f : 0.0f;
      masked[ts] = s > t ? neg_inf : dot;
      scaled[ts] = stones::apply_scale(masked[ts], stones::Scale::kDivideSqrt, OC);
      future[ts] = s > t;
    }
  const float scale = static_cast<float>(std::sqrt(static_cast<double>(OC)));
  const std::vector<int64_t> t_c = {T, C}, t_o = {T, OC}, t_t = {T, T};
  return {
      {"x[0]:", "x = batch", {x.begin(), x.begin() + tc}, t_c, {}},
      {"keys[0]:", "keys = self.W_key(x)", {ca.k.begin(), ca.k.begin() + to}, t_o, {}},
      {"queries[0]:", "queries = self.W_query(x)", {ca.q.begin(), ca.q.begin() + to}, t_o, {}},
      {"values[0]:", "values = self.W_value(x)", {ca.v.begin(), ca.v.begin() + to}, t_o, {}},
      {"attn_scores = queries @ keys.transpose(1, 2) [0]:",
       "attn_scores = queries @ keys.transpose(1, 2)",
       scores,
       t_t,
       {}},
      {"mask = torch.triu(torch.ones(T, T), diagonal=1):",
       "mask = torch.triu(torch.ones(T, T), diagonal=1)", mask, t_t, future},
      {"attn_scores.masked_fill_(mask.bool(), -torch.inf) [0]:",
       "attn_scores.masked_fill_(mask.bool(), -torch.inf)", masked, t_t, future},
      {"scale = keys.shape[-1]**0.5:", "scale = keys.shape[-1]**0.5", {scale}, {}, {}},
      {"attn_scores / keys.shape[-1]**0.5 [0]:", "attn_scores / keys.shape[-1]**0.5", scaled, t_t,
       future},
      {"attn_weights = torch.softmax(..., dim=-1) [0]:",
       "attn_weights = torch.softmax(attn_scores / keys.shape[-1]**0.5, dim=-1)",
       {ca.weights.begin(), ca.weights.begin() + tt},
       t_t,
       future},
      {"context_vec = attn_weights @ values [0]:",
       "context_vec = attn_weights @ values",
       {out.begin(), out.begin() + to},
       t_o,
       {}},
  };
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
                                                    const std::vector<float>& x, int B, int T) {
  const int C = mha.C, OC = mha.OC, HS = mha.HS;
  const float neg_inf = -std::numeric_limits<float>::infinity();
  std::vector<float> out(int64_t{B} * T * OC);  // (B, T, d_out)
  mha.forward(out.data(), x.data(), B, T);      // eval: no dropout
  const int64_t tc = int64_t{T} * C, to = int64_t{T} * OC, tt = int64_t{T} * T;
  // head 0 of sequence 0: the column slice [0, HS) of the (T, d_out) rows
  auto head0 = [&](const std::vector<float>& m) {
    std::vector<float> h(int64_t{T} * HS);
    for (int t = 0; t < T; ++t)
      for (int i = 0; i < HS; ++i) h[int64_t{t} * HS + i] = m[int64_t{t} * OC + i];
    return h;
  };
  const std::vector<float> k0 = head0(mha.k), q0 = head0(mha.q), v0 = head0(mha.v),
                           c0 = head0(mha.context);
  std::vector<float> scores(tt), mask(tt), masked(tt), scaled(tt);  // (T, T)
  std::vector<bool> future(tt);
  for (int t = 0; t < T; ++t)
    for (int s = 0; s < T; ++s) {
      float dot = 0;  // in attend_forward's order
      for (int i = 0; i < HS; ++i) dot += q0[int64_t{t} * HS + i] * k0[int64_t{s} * HS + i];
      const int64_t ts = int64_t{t} * T + s;
      scores[ts] = dot;
      mask[ts] = s > t ? 1.0f : 0.0f;
      masked[ts] = s > t ? neg_inf : dot;
      scaled[ts] = stones::apply_scale(masked[ts], stones::Scale::kDivideSqrt, HS);
      future[ts] = s > t;
    }
  const float scale = static_cast<float>(std::sqrt(static_cast<double>(HS)));
  const std::vector<int64_t> t_c = {T, C}, t_o = {T, OC}, t_h = {T, HS}, t_t = {T, T};
  return {
      {"x[0]:", "x = batch", {x.begin(), x.begin() + tc}, t_c, {}},
      {"keys[0]:", "keys = self.W_key(x)", {mha.k.begin(), mha.k.begin() + to}, t_o, {}},
      {"queries[0]:", "queries = self.W_query(x)", {mha.q.begin(), mha.q.begin() + to}, t_o, {}},
      {"values[0]:", "values = self.W_value(x)", {mha.v.begin(), mha.v.begin() + to}, t_o, {}},
      {"keys[0, 0]:",
       "keys = keys.view(b, num_tokens, num_heads, head_dim).transpose(1, 2)",
       k0,
       t_h,
       {}},
      {"queries[0, 0]:", "queries = queries.view(...).transpose(1, 2)", q0, t_h, {}},
      {"values[0, 0]:", "values = values.view(...).transpose(1, 2)", v0, t_h, {}},
      {"attn_scores = queries @ keys.transpose(2, 3) [0, 0]:",
       "attn_scores = queries @ keys.transpose(2, 3)",
       scores,
       t_t,
       {}},
      {"mask = torch.triu(torch.ones(T, T), diagonal=1):",
       "mask_bool = self.mask.bool()[:num_tokens, :num_tokens]", mask, t_t, future},
      {"attn_scores.masked_fill_(mask_bool, -torch.inf) [0, 0]:",
       "attn_scores.masked_fill_(mask_bool, -torch.inf)", masked, t_t, future},
      {"scale = keys.shape[-1]**0.5:", "scale = keys.shape[-1]**0.5 (head_dim)", {scale}, {}, {}},
      {"attn_scores / keys.shape[-1]**0.5 [0, 0]:", "attn_scores / keys.shape[-1]**0.5", scaled,
       t_t, future},
      {"attn_weights = torch.softmax(..., dim=-1) [0, 0]:",
       "attn_weights = torch.softmax(attn_scores / keys.shape[-1]**0.5, dim=-1)",
       {mha.weights.begin(), mha.weights.begin() + tt},
       t_t,
       future},
      {"(attn_weights @ values) [0, 0]:", "attn_weights @ values", c0, t_h, {}},
      {"context_vec = self.out_proj(context_vec) [0]:",
       "context_vec = self.out_proj(context_vec.transpose(1, 2).contiguous().view(b, T, d_out))",
       {out.begin(), out.begin() + to},
       t_o,
       {}},
  };
}

void print_trace(LessonOut& out, const std::vector<TraceMatrix>& trace) {
  for (const auto& m : trace) out.trace(m);
}

void write_trace_page(const std::string& path, bool overwrite, const std::string& title,
                      const std::string& sentence, const std::string& code,
                      const std::vector<TraceMatrix>& trace) {
  const UserOutput rule{"--html", overwrite};
  check_output(path, rule);  // before the page is drawn
  std::string body = "<h1>" + html_escape(title) + "</h1>\n<p>" + html_escape(sentence) +
                     "</p>\n<pre class=\"code\">" + html_escape(code) + "</pre>\n" +
                     std::string(page_asset("trace_legend.html"));
  for (const auto& m : trace) body += step_markup(m);
  write_page(path, rule, Page{.title = title, .style = "trace.css", .body = body});
}

}  // namespace scratchgpt::lessons
