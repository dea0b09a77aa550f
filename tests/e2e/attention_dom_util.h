// attention_dom_util.h: reading assets/attention.js's data and drawing back in tests: the data's
// base64 floats unpacked, and the heatmap's shading and the trace's numbers in a browser's DOM checked
// against them (attention_page_test, web/gpt_page_test). Leaves out: running the browser.
#pragma once

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>
#include <vector>

namespace scratchgpt::test {

// A base64 string (RFC 4648) of float32 little-endian values, decoded independently of the page's
// writer.
inline std::vector<float> floats(const std::string& b64) {
  std::vector<unsigned char> bytes;
  uint32_t acc = 0;
  int bits = 0;
  for (char c : b64) {
    int v = -1;
    if (c >= 'A' && c <= 'Z')
      v = c - 'A';
    else if (c >= 'a' && c <= 'z')
      v = c - 'a' + 26;
    else if (c >= '0' && c <= '9')
      v = c - '0' + 52;
    else if (c == '+')
      v = 62;
    else if (c == '/')
      v = 63;
    if (v < 0) continue;  // '=' padding
    acc = (acc << 6) | static_cast<uint32_t>(v);
    bits += 6;
    if (bits >= 8) {
      bits -= 8;
      bytes.push_back(static_cast<unsigned char>((acc >> bits) & 0xFF));
    }
  }
  EXPECT_EQ(bytes.size() % 4, 0u);
  std::vector<float> out(bytes.size() / 4);
  for (size_t i = 0; i < out.size(); ++i) {
    const uint32_t u = bytes[4 * i] | (bytes[4 * i + 1] << 8) | (bytes[4 * i + 2] << 16) |
                       (uint32_t{bytes[4 * i + 3]} << 24);
    std::memcpy(&out[i], &u, 4);
  }
  return out;
}

// The page's numbers unpacked: weights[l][h] (T, T) with the future 0, qkv[l] (T, 3C).
struct Numbers {
  int T = 0, L = 0, NH = 0, C = 0, HS = 0;
  double scale = 0;
  std::vector<std::vector<std::vector<double>>> weights;
  std::vector<std::vector<float>> qkv;
  double w(int l, int h, int i, int j) const {
    return weights[l][h][static_cast<size_t>(i) * T + j];
  }
  double at(int l, int t, int col) const { return qkv[l][static_cast<size_t>(t) * 3 * C + col]; }
};

inline Numbers numbers(const nlohmann::json& d) {
  Numbers n;
  n.T = static_cast<int>(d["ids"].size());
  n.L = d["n_layer"], n.NH = d["n_head"], n.C = d["n_embd"], n.HS = d["head_size"];
  n.scale = d["scale"];
  EXPECT_EQ(n.HS * n.NH, n.C);
  EXPECT_NEAR(n.scale, 1.0 / std::sqrt(double(n.HS)), 1e-12);
  for (int l = 0; l < n.L; ++l) {
    n.weights.emplace_back();
    for (int h = 0; h < n.NH; ++h) {
      const std::vector<float> tri = floats(d["weights"][l][h]);
      EXPECT_EQ(tri.size(), static_cast<size_t>(n.T) * (n.T + 1) / 2) << "the lower triangle";
      std::vector<double> full(static_cast<size_t>(n.T) * n.T, 0.0);
      size_t k = 0;
      for (int i = 0; i < n.T; ++i)
        for (int j = 0; j <= i && k < tri.size(); ++j)
          full[static_cast<size_t>(i) * n.T + j] = tri[k++];
      n.weights.back().push_back(full);
    }
    n.qkv.push_back(floats(d["qkv"][l]));
    EXPECT_EQ(n.qkv.back().size(), static_cast<size_t>(n.T) * 3 * n.C);
  }
  return n;
}

inline int count(const std::string& text, const std::string& what) {
  int n = 0;
  for (size_t at = text.find(what); at != std::string::npos; at = text.find(what, at + 1)) ++n;
  return n;
}

// The numbers of the text between open and the next close (e.g. a trace's vector), as doubles.
inline std::vector<double> numbers_in(const std::string& text, const std::string& open,
                               const std::string& close) {
  std::vector<double> v;
  const size_t a = text.find(open);
  if (a == std::string::npos) return v;
  std::istringstream in(
      text.substr(a + open.size(), text.find(close, a + open.size()) - a - open.size()));
  for (double x; in >> x;) v.push_back(x);
  return v;
}

// The heatmap of the chosen head: each row's cells shaded by weight / the row's max (per row)
// or by the weight (absolute), to the 3 decimals written; each row's largest at 1.000 per row.
inline void expect_shading(const std::string& dom, const Numbers& n, int l, int h, bool per_row) {
  for (int i = 0; i < n.T; ++i) {
    const std::string open = "<g class=\"row\" data-row=\"" + std::to_string(i) + "\">";
    const size_t a = dom.find(open), b = dom.find("</g>", a);
    ASSERT_NE(a, std::string::npos) << open;
    const std::string row = dom.substr(a, b - a);
    double row_max = 0, top = 0;
    for (int j = 0; j <= i; ++j) row_max = std::max(row_max, n.w(l, h, i, j));
    int cells = 0;
    for (size_t at = row.find("fill-opacity=\""); at != std::string::npos;
         at = row.find("fill-opacity=\"", at + 1)) {
      const double shade = std::stod(row.substr(at + 14));
      const double want = per_row ? n.w(l, h, i, cells) / row_max : n.w(l, h, i, cells);
      EXPECT_NEAR(shade, want, 5.01e-4) << "row " << i << " key " << cells;
      top = std::max(top, shade);
      ++cells;
    }
    EXPECT_EQ(cells, i + 1) << "row " << i << ": a cell per key up to the query";
    if (per_row) {
      EXPECT_EQ(top, 1.0) << "row " << i << "'s largest weight is fully shaded";
    }
  }
}

// The trace in a drawn DOM at layer l, head h, query q: q, each q.k_j, the weights and the weighted
// sum of v, to the 4 decimals shown, against the numbers n.
inline void expect_trace_shown(const std::string& dom, const Numbers& n, int l, int h, int q) {
  EXPECT_NE(
      dom.find("<section class=\"trace\" data-layer=\"" + std::to_string(l) + "\" data-head=\"" +
               std::to_string(h) + "\" data-query=\"" + std::to_string(q) + "\""),
      std::string::npos);
  const std::vector<double> shown_q = numbers_in(dom, "<div class=\"vec q\">", "<");
  ASSERT_EQ(shown_q.size(), static_cast<size_t>(n.HS));
  for (int e = 0; e < n.HS; ++e) EXPECT_NEAR(shown_q[e], n.at(l, q, h * n.HS + e), 5.1e-5);
  std::vector<double> sum(n.HS, 0.0);
  for (int j = 0; j < n.T; ++j) {
    const size_t row = dom.find("<tr data-key=\"" + std::to_string(j) + "\"");
    ASSERT_NE(row, std::string::npos) << j;
    double dot = 0;
    for (int e = 0; e < n.HS; ++e) dot += n.at(l, q, h * n.HS + e) * n.at(l, j, n.C + h * n.HS + e);
    const std::string tail = dom.substr(row);
    EXPECT_NEAR(numbers_in(tail, "<td class=\"dot\">", "<").at(0), dot, 5.1e-5) << j;
    EXPECT_NEAR(numbers_in(tail, "<td class=\"weight\">", "<").at(0), n.w(l, h, q, j), 5.1e-5) << j;
    for (int e = 0; e < n.HS; ++e) sum[e] += n.w(l, h, q, j) * n.at(l, j, 2 * n.C + h * n.HS + e);
  }
  const std::vector<double> shown = numbers_in(dom, "<div class=\"vec out-sum\">", "<");
  ASSERT_EQ(shown.size(), static_cast<size_t>(n.HS));
  for (int e = 0; e < n.HS; ++e) EXPECT_NEAR(shown[e], sum[e], 5.1e-5) << e;
}

}  // namespace scratchgpt::test
