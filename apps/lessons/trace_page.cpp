// trace_page.cpp: print_trace and write_trace_page (see trace_page.h); the traces themselves
// are made in trace_steps.cpp.

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
  const bool col_heads = static_cast<int64_t>(m.cols.size()) == cols;
  const bool row_heads = static_cast<int64_t>(m.rows.size()) == rows;
  if (col_heads) {  // the column labels, and in the corner which axis is which
    h << "<tr>";
    if (row_heads)
      h << "<th class=\"corner\">" << html_escape(m.row_axis) << " \\ " << html_escape(m.col_axis)
        << "</th>";
    for (const std::string& c : m.cols) h << "<th>" << html_escape(c) << "</th>";
    h << "</tr>\n";
  }
  for (int64_t r = 0; r < rows; ++r) {
    h << "<tr>";
    if (row_heads) h << "<th>" << html_escape(m.rows[r]) << "</th>";
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
  h << "</table>\n";
  if (!m.notes.empty()) {
    h << "<pre class=\"worked\">";
    for (const std::string& n : m.notes) h << html_escape(n) << "\n";
    h << "</pre>\n";
  }
  h << "</section>\n";
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
